#!/usr/bin/env bash
# H200: the epilogue's ½ folded into α/β/bias for a 16-bit GELU (new) against the committed kernels (old, st2),
# epilogue rows alternating old/new twice (new with the bias-only and bias+ReLU rows in turn);
# GPU tests cuda::wgmma and cuda::mma; racecheck + memcheck on the 128x256 bias_gelu cases.
set -u
mkdir -p /tmp/old /tmp/new
tar xJf .gpu/st2.tar.xz -C /tmp/old || echo UNTAR OLD FAILED
tar xJf .gpu/epi.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 150 bundle/bin/kernels --include-ignored --test-threads=12 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -10; gzip -f $OUT/t-wgmma.log
FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=12 cuda::mma > $OUT/t-mma.log 2>&1; echo "mma rc=$?"
grep "test result" $OUT/t-mma.log; grep -E "FAILED|panicked" $OUT/t-mma.log | head -10; gzip -f $OUT/t-mma.log
FERROTILE_REQUIRE_GPU=1 timeout 80 compute-sanitizer --tool racecheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256::bias_gelu > $OUT/racecheck.log 2>&1; echo "racecheck rc=$?"; grep -E "test result|RACECHECK SUMMARY" $OUT/racecheck.log | tail -2
FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256::bias_gelu > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/memcheck.log | tail -2
export FERROTILE_BENCH_ONLY=epilogue
for r in 1 2; do
  for v in old new; do
    echo "=== $v round $r"
    if [ $v = new ]; then export FERROTILE_BENCH_EPILOGUE_PARTS=1; else unset FERROTILE_BENCH_EPILOGUE_PARTS; fi
    if [ $r$v = 1new ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/$v && timeout 110 bundle/bin/bench-gemm_tc > $OUT/bench-$v$r.log 2>&1 ); echo "rc=$?"
    grep -E "^\| bf16" $OUT/bench-$v$r.log | awk -F'|' '{print $3,$4,$5,$7,$8}'
  done
done
