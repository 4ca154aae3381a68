#!/usr/bin/env bash
# H200, the committed build (3c46742: the f32 GEMM reading a transposed A as stored): every GPU
# case of the kernels test binary (the emulator's cases skipped: CI runs them), then memcheck on a few Auto and window
# blur cases.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
mkdir -p /tmp/t3 && tar xJf .gpu/t3.tar.xz -C /tmp/t3 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/t3
bundle/bin/kernels --list 2>/dev/null | grep -c ": test$" | sed 's/^/listed: /'
FERROTILE_REQUIRE_GPU=1 timeout 480 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator > $OUT/logs/t-all.log 2>&1; echo "all rc=$? t=$SECONDS"
grep "test result" $OUT/logs/t-all.log; grep -E "^test .*FAILED|panicked" $OUT/logs/t-all.log | head -5
grep -c "\.\.\. ok$" $OUT/logs/t-all.log | sed 's/^/ok lines: /'
bundle/bin/kernels --list 2>/dev/null | grep -E "^cuda::wgmma::auto|^cuda::image::blur::blur_window::c4::r5::|^cuda::mma::bf16_bf16::nn::mma_128x128::(1|7|33)x|^cuda::sgemm::twin::warptile_64x64x16_w32x32_tn::|^cuda::sgemm::transposed_tatb::aligned_" | sed "s/: test$//" | head -48 > /tmp/mc.txt; wc -l < /tmp/mc.txt
bundle/bin/kernels --list 2>/dev/null | grep -E "^cuda::sgemm::twin::|^cuda::sgemm::transposed_tatb::aligned_" | sed "s/: test$//" >> /tmp/mc.txt; sort -u /tmp/mc.txt -o /tmp/mc.txt; wc -l < /tmp/mc.txt
FERROTILE_TESTS_FROM=/tmp/mc.txt timeout 120 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/logs/memcheck.log | tail -3
