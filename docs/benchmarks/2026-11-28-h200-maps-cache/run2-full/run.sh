#!/usr/bin/env bash
# H200: the whole gemm_tc bench of the maps-cache build (b0580cd), ten-call back-to-back rows and the uncached decode rows too; cuda::wgmma tests first.
set -u
mkdir -p /tmp/c && tar xJf .gpu/cache.tar.xz -C /tmp/c || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee $OUT/gpu.txt
cd /tmp/c
FERROTILE_REQUIRE_GPU=1 timeout 150 bundle/bin/kernels --include-ignored --test-threads=12 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked|failed" $OUT/t-wgmma.log | head -10; grep -c "\.\.\. ok" $OUT/t-wgmma.log; gzip -f $OUT/t-wgmma.log
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_DECODE_UNCACHED=1 timeout 410 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|f16|tf32)" $OUT/bench.log | grep -v "mma_128x128\|pp_128\|128x128:" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -150
