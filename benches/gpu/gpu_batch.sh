#!/usr/bin/env bash
# One batch on a lent GPU machine (no Rust there): the bundle's tests, the
# tour and every benchmark (bundle/run.sh), then the PyTorch (and CuPy) baselines.
# Build the bundle first with `cargo xtask gpu-bundle`; run from the repo
# root: `bash benches/gpu/gpu_batch.sh [quick|full]`. Logs are packed into
# $OUT/logs.tgz (the device tool returns at most 8 files); the summary table
# of run.sh is printed last.
set -uo pipefail
mode=${1:-quick}
work=${FERROTILE_WORK:-/tmp/ferrotile-batch}
mkdir -p "$work/logs"
OUT=$work bash bundle/run.sh "$mode" > "$work/logs/run.log" 2>&1
rc=$?
for py in benches/gpu/torch_transpose.py benches/gpu/torch_sgemm.py benches/gpu/torch_image.py; do
  python3 "$py" > "$work/logs/$(basename "$py" .py).log" 2>&1 || echo "$py failed (see its log)"
done
if [ -n "${OUT:-}" ]; then
  tar czf "$OUT/logs.tgz" -C "$work" logs
fi
cat "$work/logs/torch_sgemm.log" "$work/logs/torch_transpose.log" "$work/logs/torch_image.log"
grep -h -A70 "### Shape classes" "$work/logs/bench-image.log" 2>/dev/null | head -75
tail -22 "$work/logs/run.log"
exit $rc
