#!/usr/bin/env bash
# Set up (if needed) and run every check: Rust format, lints and tests; Python lints and tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

bash scripts/setup.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo test (release: the statistical tests simulate many packets)"
cargo test --workspace --release --quiet
echo "== ruff"
"$PY" -m ruff check python tests
echo "== pytest"
"$PY" -m pytest -q tests
