#!/usr/bin/env bash
# H200: the f32 GEMM's A-transposed twins (rung 9 tilings reading Aᵀ as stored; a transposed B still copied first, TT
# = the twin on B's copy) against the committed build (transposed copies, then the row-major tiling): the bench's
# shape-class table and the medium shapes' transposes, old/new in turn, two rounds; GPU SGEMM tests; memcheck on twins.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
for b in sold snew2; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR FAILED $b; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/logs/gpu.txt
export FERROTILE_BENCH_CLASSES=only
for r in 1 2; do
  for v in sold snew2; do
    export FERROTILE_RESULTS=$OUT/logs/results-$v$r.jsonl
    ( cd /tmp/$v && timeout 100 bundle/bin/bench-sgemm > $OUT/logs/sgemm-$v$r.log 2>&1 ); echo "bench $v$r rc=$? t=$SECONDS"
    grep -E " (TN|NT|TT) " $OUT/logs/sgemm-$v$r.log | awk -F'|' '{print $2,$3,$4,$5,$6,$7}' | head -30
    export FERROTILE_RESULTS=$OUT/logs/results-medium-$v$r.jsonl
    ( cd /tmp/$v && FERROTILE_BENCH_CLASS_SHAPES=1536,777x1031x2053,2000x600x3000,1200x1100x1000 timeout 100 bundle/bin/bench-sgemm > $OUT/logs/sgemm-medium-$v$r.log 2>&1 ); echo "medium $v$r rc=$? t=$SECONDS"
    grep -E " (NN|TN|NT|TT) " $OUT/logs/sgemm-medium-$v$r.log | awk -F'|' '{print $2,$3,$4,$5,$6,$7}' | head -30
  done
done
unset FERROTILE_RESULTS FERROTILE_BENCH_CLASSES
cd /tmp/snew2
FERROTILE_REQUIRE_GPU=1 timeout 150 bundle/bin/kernels --include-ignored --test-threads=16 cuda::sgemm > $OUT/logs/tests-sgemm.log 2>&1; echo "tests rc=$? t=$SECONDS"; grep -E "^test result" $OUT/logs/tests-sgemm.log; grep -E "FAILED|panicked" $OUT/logs/tests-sgemm.log | head -10
FERROTILE_REQUIRE_GPU=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::sgemm::twin:: > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "test result|ERROR SUMMARY" $OUT/logs/memcheck.log | tail -2
FERROTILE_REQUIRE_GPU=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::sgemm::transposed_tatb::aligned > $OUT/logs/memcheck-tt.log 2>&1; echo "memcheck tt rc=$? t=$SECONDS"; grep -E "test result|ERROR SUMMARY" $OUT/logs/memcheck-tt.log | tail -2
