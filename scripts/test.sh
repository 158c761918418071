#!/usr/bin/env bash
# Set up (if needed) and run every check: Rust format, lints, doc links and tests; Python
# lints and tests, including the report in a real browser (Chromium), pcap decoding by
# tshark, the wheel installed into a fresh virtual environment, and the cross-validation
# against ns-3 (g++ builds transim's ns-3 driver).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/system-packages.sh chromium tshark g++
bash scripts/setup.sh
VPY=.venv/bin/python

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo doc -D warnings (doc comments' links resolve)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
echo "== cargo test (release: the statistical tests simulate many packets)"
cargo test --workspace --release --quiet
echo "== ruff"
"$VPY" -m ruff check python tests scripts
echo "== mypy (the package's type hints; files and options in pyproject.toml)"
"$VPY" -m mypy
echo "== pytest (one worker per core: pytest-xdist)"
"$VPY" -m pytest -q -n auto --dist worksteal tests
