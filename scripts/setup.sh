#!/usr/bin/env bash
# Install everything transim needs on a fresh machine (Debian with a Rust toolchain and
# CPython 3.11+) into a project virtual environment, .venv, and build the package into it
# (editable: the Rust engine through maturin). Idempotent. Afterwards:
#   source .venv/bin/activate     # then `transim ...` works in this shell
# Set PYTHON to choose the interpreter the venv is made from (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=.venv
command -v cargo >/dev/null || { echo "setup: cargo not found; install a Rust toolchain (rustup)" >&2; exit 1; }
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "setup: Python >= 3.11 needed ($PY is $("$PY" --version 2>&1))" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
    echo "== Creating the virtual environment $VENV"
    if ! "$PY" -m venv "$VENV" 2>/dev/null; then
        # Debian's Python ships venv separately.
        rm -rf "$VENV"
        bash scripts/system-packages.sh python3-venv
        "$PY" -m venv "$VENV"
    fi
fi
VPY="$VENV/bin/python"

echo "== Python dependencies"
"$VPY" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VPY" -m pip install --quiet --disable-pip-version-check \
    "maturin>=1.5,<2" "numpy>=1.24" "matplotlib>=3.7" "tqdm>=4.60" "scipy>=1.10" \
    "jinja2>=3.1" "markdown>=3.4" "dask[distributed]>=2024.1" "pandas>=2.0" "pyarrow>=14" \
    "pytest>=7" "pytest-xdist>=3.5" "ruff>=0.4" "playwright>=1.40" "hypothesis>=6.100" \
    "mypy>=1.10" pandas-stubs scipy-stubs types-tqdm types-Markdown

echo "== ns-3 for the cross-validation (the peers extra's wheel, without its cppyy bindings)"
# transim builds its own C++ driver against ns-3's libraries and headers; the Python
# bindings the wheel depends on are not used. Optional: without it the peer tests skip.
"$VPY" -m pip install --quiet --disable-pip-version-check --no-deps "ns3>=3.44" \
    || echo "setup: no ns-3 wheel for this Python/platform; transim compare ns3 and the peer tests need ns-3 (apt install libns3-dev)" >&2

echo "== Building transim (Rust engine + Python package) into $VENV"
"$VPY" -m pip install --quiet --disable-pip-version-check --no-build-isolation -e .
"$VPY" -c 'import transim; print("transim", transim.__version__, "ready in .venv (source .venv/bin/activate)")'
