#!/usr/bin/env bash
# H200: GPU tests of the committed staging copy (new2: several short rows per warp, slots stepped without divisions),
# compute-sanitizer memcheck of its staged, batched and odd cases.
set -u
mkdir -p $OUT/logs /tmp/new2 && tar xJf .gpu/new2.tar.xz -C /tmp/new2 || echo UNTAR FAILED
cd /tmp/new2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
for f in cuda::mma:: cuda::wgmma:: cuda::sgemm::auto_any restaged; do
  n=${f//:/-}
  FERROTILE_REQUIRE_GPU=1 timeout 280 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-$n.log 2>&1; echo "tests $f rc=$? t=$SECONDS"
  grep "test result" $OUT/logs/t-$n.log; grep -E "FAILED|panicked" $OUT/logs/t-$n.log | head -3
done
bundle/bin/kernels --list 2>/dev/null | grep -E "^cuda::.*(batch|staged|odd|127|33x|7x)" | sed 's/: test$//' | awk 'NR % 3 == 1' | head -80 > /tmp/mc.txt; wc -l < /tmp/mc.txt
FERROTILE_TESTS_FROM=/tmp/mc.txt timeout 150 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/logs/memcheck.log | tail -3
cp /tmp/mc.txt $OUT/logs/memcheck-cases.txt
cd $OUT && tar czf logs.tgz logs && rm -rf logs
