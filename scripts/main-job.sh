#!/usr/bin/env bash
# Set up (if needed) and run the main job: the reproduction report at the quick scale.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
bash scripts/setup.sh
"$PY" -m transim.cli report --scale "${SCALE:-quick}" --out "${OUT:-out/report}"
