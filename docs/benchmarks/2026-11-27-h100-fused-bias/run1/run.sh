#!/usr/bin/env bash
# Fused bias + GELU: bias in shared memory per tile, tanh.approx for 16-bit outputs. GPU tests wgmma + mma, racecheck + memcheck on bias cases, bench epilogue rows (two rounds), ncu of the 4096³ fused call.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
for f in cuda::wgmma cuda::mma; do
  FERROTILE_REQUIRE_GPU=1 timeout 220 bundle/bin/kernels --include-ignored --test-threads=8 $f > $OUT/t-${f#cuda::}.log 2>&1; echo "$f rc=$?"; grep "test result" $OUT/t-${f#cuda::}.log; grep -E "FAILED|panicked" $OUT/t-${f#cuda::}.log | head -10
done
for tool in racecheck memcheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x128::bias_gelu > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$?"; grep -E "test result|ERROR SUMMARY|RACECHECK SUMMARY" $OUT/sanitizer-$tool.log | tail -3
done
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_ONLY="epilogue,bf16→bf16 4096×4096×4096" timeout 150 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "=== rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/gemm_tc.log | grep -E "auto|fused|plain|separate|cuBLAS" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -40
unset FERROTILE_RESULTS
FERROTILE_BENCH_ONLY="epilogue" timeout 90 bundle/bin/bench-gemm_tc > $OUT/gemm_tc2.log 2>&1; echo "=== round 2 rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/gemm_tc2.log | grep -E "fused|plain|separate" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -20
cd $OUT && tar czf rest.tgz t-*.log && rm -f t-*.log; ls $OUT
