#!/usr/bin/env bash
# H200: decode rows of the unit-queue build (Auto = swapped tile; 128x128 / 128x256 forced), one call and back to back.
set -u
mkdir -p /tmp/new && tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/new
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×14336×4096 decode" timeout 140 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench.log | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "mma_128x128 \|pp_128" | head -40
