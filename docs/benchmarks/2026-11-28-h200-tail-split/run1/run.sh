#!/usr/bin/env bash
# H200: the whole gemm_tc bench of the committed build (tail split in), ten-call back-to-back rows too.
set -u
mkdir -p /tmp/h2
tar xJf .gpu/new.tar.xz -C /tmp/h2 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee $OUT/gpu.txt
cd /tmp/h2
FERROTILE_REQUIRE_GPU=1 timeout 170 bundle/bin/kernels --include-ignored --test-threads=12 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked|failed" $OUT/t-wgmma.log | head -10; gzip -f $OUT/t-wgmma.log
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 timeout 380 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|f16|tf32)" $OUT/bench.log | grep -v "mma_128x128\|pp_128\|128x128:" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -120
