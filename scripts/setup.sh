#!/usr/bin/env bash
# Install everything transim needs on a fresh machine of this kind (Debian, Rust toolchain,
# CPython 3.10+ with pip) and build the package into the current Python. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
command -v cargo >/dev/null || { echo "setup: cargo not found; install a Rust toolchain (rustup)" >&2; exit 1; }
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "setup: Python >= 3.10 needed" >&2; exit 1; }

echo "== Python dependencies"
"$PY" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    "maturin>=1.5,<2" "numpy>=1.24" "matplotlib>=3.7" "tqdm>=4.60" "scipy>=1.10" "pytest>=7" "ruff>=0.4"

echo "== Building transim (Rust engine + Python package)"
"$PY" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    --no-build-isolation -e .
"$PY" -c 'import transim; print("transim", transim.__version__, "ready")'
