#!/usr/bin/env bash
# H200: the f32 GEMM's B-transposed twins (Bᵀ's float4s along k turned by four scalar stores into a B tile laid out
# as the transposed A tile is) and TT twins (both operands as stored) against the committed build (A-transposed twins,
# B's transposed copy): the bench's shape-class table (FERROTILE_BENCH_CLASSES=only), old/new in turn, two rounds;
# GPU SGEMM tests; memcheck on the new twins.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
for b in snew2 snt; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR FAILED $b; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/logs/gpu.txt
export FERROTILE_BENCH_CLASSES=only
for r in 1 2; do
  for v in snew2 snt; do
    export FERROTILE_RESULTS=$OUT/logs/results-$v$r.jsonl
    ( cd /tmp/$v && timeout 100 bundle/bin/bench-sgemm > $OUT/logs/sgemm-$v$r.log 2>&1 ); echo "bench $v$r rc=$? t=$SECONDS"
    grep -E " (TN|NT|TT) |1000×1000×1000   NN" $OUT/logs/sgemm-$v$r.log | awk -F'|' '{print $2,$3,$4,$5,$6,$7}' | head -30
  done
done
unset FERROTILE_RESULTS FERROTILE_BENCH_CLASSES
cd /tmp/snt
FERROTILE_REQUIRE_GPU=1 timeout 150 bundle/bin/kernels --include-ignored --test-threads=16 cuda::sgemm > $OUT/logs/tests-sgemm.log 2>&1; echo "tests rc=$? t=$SECONDS"; grep -E "^test result" $OUT/logs/tests-sgemm.log; grep -E "FAILED|panicked" $OUT/logs/tests-sgemm.log | head -10
FERROTILE_REQUIRE_GPU=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::sgemm::twin:: > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "test result|ERROR SUMMARY" $OUT/logs/memcheck.log | tail -2
