#!/usr/bin/env bash
# H200: the build whose swapped tiles' maps promote L2 fills by 128 bytes (the others 256): every decode row of the
# bench (one call, ten back to back), records for the H200 table; then the GPU tests of the swapped tiles.
set -u
mkdir -p $OUT/logs /tmp/new && tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
cd /tmp/new
FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY="decode" FERROTILE_BENCH_BACK_TO_BACK=1 timeout 170 bundle/bin/bench-gemm_tc > $OUT/logs/decode.log 2>&1; echo "bench rc=$?"
grep -E "device copy|cuBLAS:|auto \(|auto, 10 calls|cuBLAS, 10" $OUT/logs/decode.log | grep -v JSON | awk -F'|' '{print $3,$4,$7}'
FERROTILE_REQUIRE_GPU=1 timeout 120 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator wgmma_swap > $OUT/logs/t-swap.log 2>&1; echo "swap tests rc=$?"
grep "test result" $OUT/logs/t-swap.log; grep -E "FAILED|panicked" $OUT/logs/t-swap.log | head -5
gzip $OUT/logs/t-swap.log
cd $OUT && tar czf logs.tgz logs && rm -rf logs
