#!/usr/bin/env bash
# Set up (if needed) and run the main job: the reproduction report at the quick scale,
# written to out/report/report.html (and report.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m transim.cli report --scale "${SCALE:-quick}" --out "${OUT:-out/report}"
