#!/usr/bin/env bash
# GPU tests of the final build (bd570ab + review): wgmma (all types, incl. plain::257x512x200), mma, sgemm; memcheck on the 128x256 bf16 nn cases.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
for f in cuda::wgmma cuda::mma cuda::sgemm; do
  FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=12 $f > $OUT/t-${f#cuda::}.log 2>&1; echo "$f rc=$?"; tail -2 $OUT/t-${f#cuda::}.log | head -1; grep -E "FAILED|panicked" $OUT/t-${f#cuda::}.log | head -10
done
FERROTILE_REQUIRE_GPU=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256 > $OUT/sanitizer-memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-memcheck.log | tail -2
cd $OUT && tar czf rest.tgz t-*.log sanitizer-memcheck.log && rm -f t-*.log sanitizer-memcheck.log; ls $OUT
