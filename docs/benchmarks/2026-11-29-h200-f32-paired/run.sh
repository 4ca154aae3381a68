#!/usr/bin/env bash
# H200: issue 15's staged f32 GEMM classes — both staged operands in one launch (sgnew) against two launches (sgold),
# three rounds in turn; GPU tests of the f32 GEMM's staged paths and memcheck (kt: the committed kernels tests).
set -u
mkdir -p $OUT/logs
for b in sgold sgnew kt; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR FAILED $b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
SH="1023x1025x1021,777x1031x2053,1000,1000x1000x4000"
for r in sgold sgnew sgold sgnew sgold sgnew; do
  cd /tmp/$r
  L=$OUT/logs/c-$r-$SECONDS.log
  FERROTILE_RESULTS=$OUT/logs/results-$r.jsonl FERROTILE_BENCH_CLASSES=only FERROTILE_BENCH_CLASS_SHAPES=$SH timeout 60 bundle/bin/bench-sgemm > $L 2>&1; echo "=== $r rc=$? t=$SECONDS"
  grep -E "^\| " $L | grep -v "^| ---" | grep -vE "forced|↳|class \|" | awk -F'|' '{print $2,$3,$4,$5,$6,$8}' | head -12
done
cd /tmp/kt
for f in cuda::sgemm::auto_any cuda::sgemm::transposed cuda::sgemm::edge_tight cuda::sgemm::auto_packed; do
  n=${f//:/-}
  FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-$n.log 2>&1; echo "tests $f rc=$?"
  grep "test result" $OUT/logs/t-$n.log; grep -E "FAILED|panicked" $OUT/logs/t-$n.log | head -3
done
bundle/bin/kernels --list 2>/dev/null | grep -E "^cuda::sgemm::auto_any::.._pad3" | sed 's/: test$//' | head -40 > /tmp/mc.txt
FERROTILE_TESTS_FROM=/tmp/mc.txt timeout 100 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/logs/memcheck.log | tail -3
cp /tmp/mc.txt $OUT/logs/memcheck-cases.txt
cd $OUT && tar czf logs.tgz logs && rm -rf logs
