#!/usr/bin/env bash
# H200: tensor maps cached per context handle (no upload per call): GPU tests of the repeated split-K calls, then decode one call / back to back against the same calls with maps uploaded every call.
set -u
mkdir -p /tmp/c && tar xJf .gpu/cache.tar.xz -C /tmp/c || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/c
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_DECODE_UNCACHED=1 FERROTILE_BENCH_ONLY="decode" timeout 200 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench.log | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "mma_128x128 \|pp_128" | head -70
for f in twice thrice; do timeout 90 bundle/bin/kernels $f > $OUT/tests-$f.log 2>&1; echo "=== tests $f rc=$?"; grep -E "test result|FAILED" $OUT/tests-$f.log | head -8; done
timeout 100 bundle/bin/kernels cuda::wgmma::bf16_bf16::nn > $OUT/tests-nn.log 2>&1; echo "=== tests nn rc=$?"; grep -E "test result|FAILED" $OUT/tests-nn.log | head -8
timeout 60 compute-sanitizer --tool memcheck bundle/bin/kernels cuda::wgmma::bf16_bf16::nn::wgmma_swap_64x128::thrice > $OUT/memcheck.log 2>&1; echo "=== memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/memcheck.log
