#!/usr/bin/env bash
# H200, the committed wgmma kernels (staging what TMA cannot address): the odd-shape rows of the bench, now with one
# dimension odd at a time (k only: A staged; n only: B staged and C stored by the threads; 8192² × 1023), two rounds.
set -u
mkdir -p $OUT/logs /tmp/new && tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
cd /tmp/new
ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031,bf16→bf16 4096×4096×4091,bf16→bf16 4096×4099×4096,bf16→bf16 8192×8192×1024,bf16→bf16 8192×8192×1023"
for r in 1 2; do
  FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 250 bundle/bin/bench-gemm_tc > $OUT/logs/odd$r.log 2>&1; echo "bench round $r rc=$?"
  grep -E "vs aligned|cuBLAS:|auto \(" $OUT/logs/odd$r.log | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}'
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
