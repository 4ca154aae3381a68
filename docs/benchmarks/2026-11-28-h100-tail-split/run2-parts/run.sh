#!/usr/bin/env bash
# Tail split: parts of the last round capped (experiment knob FERROTILE_EXP_TAIL_PARTS), Auto vs every tile whole in turn.
set -u
mkdir -p /tmp/sw
tar xJf .gpu/new.tar.xz -C /tmp/sw || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/sw
ONLY="bf16→bf16 5120×5120×4096,tf32 4093×4099×4091,bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091"
for cap in 99 4 2 8; do
  FERROTILE_EXP_TAIL_PARTS=$cap FERROTILE_RESULTS=$OUT/results-cap$cap.jsonl FERROTILE_BENCH_WHOLE_TILES=1 FERROTILE_BENCH_ONLY="$ONLY" timeout 130 bundle/bin/bench-gemm_tc > $OUT/bench-cap$cap.log 2>&1; echo "=== cap $cap rc=$?"
  grep -E "in turn|auto \(vs|cuBLAS" $OUT/bench-cap$cap.log | awk -F'|' '{print $2,$3,$4,$5,$7}'
done
