#!/usr/bin/env bash
# Run 2 (peeling only where the bulk saves a tenth of the waves; rows 4100³ and 6145²×2048 added). Edge peeling on the f32 Auto path: the shape classes and medium shapes (Auto vs cuBLAS, with the unpeeled call in the same run; two rounds of the classes), GPU tests cuda::sgemm, memcheck on the peeled cases.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_CLASSES=only timeout 240 bundle/bin/bench-sgemm > $OUT/sgemm.log 2>&1; echo "=== rc=$?"
grep -E "^\| " $OUT/sgemm.log | grep -v "timing only" | grep -v "forced |" | awk -F'|' '{print $2,$3,$4,$5,$6,$7,$8,$9}' | head -45
unset FERROTILE_RESULTS
FERROTILE_REQUIRE_GPU=1 timeout 150 bundle/bin/kernels --include-ignored --test-threads=8 cuda::sgemm > $OUT/t-sgemm.log 2>&1; echo "sgemm rc=$?"; grep "test result" $OUT/t-sgemm.log; grep -E "FAILED|panicked" $OUT/t-sgemm.log | head -10
FERROTILE_REQUIRE_GPU=1 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::sgemm::peeled > $OUT/sanitizer-memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-memcheck.log | tail -3
cd /tmp/ab/new && FERROTILE_BENCH_CLASSES=only timeout 150 bundle/bin/bench-sgemm > $OUT/sgemm2.log 2>&1; echo "=== round 2 rc=$?"
grep -E "^\| (odd|aligned)|edges not peeled" $OUT/sgemm2.log | awk -F'|' '{print $2,$3,$4,$5,$6,$7,$8,$9}' | head -20
cd $OUT && tar czf rest.tgz t-*.log && rm -f t-*.log; ls $OUT
