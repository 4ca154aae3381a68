#!/usr/bin/env bash
# H200: decode rows of the maps-cache build (b0580cd), one call, ten back to back, and the same with the maps uploaded every call.
set -u
mkdir -p /tmp/c && tar xJf .gpu/cache.tar.xz -C /tmp/c || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/c
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_DECODE_UNCACHED=1 FERROTILE_BENCH_ONLY="decode" timeout 500 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench.log | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "mma_128x128 \|pp_128\|wgmma_128x128" | head -80
