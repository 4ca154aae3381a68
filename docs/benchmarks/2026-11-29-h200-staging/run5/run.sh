#!/usr/bin/env bash
# H200: three builds in turn on the odd shapes — old (f61f884: the thread-per-chunk staging copy, buffers allocated per
# call), new2 (e200f4a: the staging copy by warps), new3 (the handle's kept staging buffers too) — two rounds; then the
# GPU tests of staged products and memcheck on new3.
set -u
mkdir -p $OUT/logs
for b in old new2 new3; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR FAILED $b; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091,bf16→bf16 4096×4099×4096,bf16→bf16 4096×4096×4091,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031"
for r in old new2 new3 old new2 new3; do
  cd /tmp/$r
  L=$OUT/logs/odd-$r-$SECONDS.log
  FERROTILE_RESULTS=$OUT/logs/results-$r.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 100 bundle/bin/bench-gemm_tc > $L 2>&1; echo "bench $r rc=$? t=$SECONDS"
  grep -hE "vs aligned" $L | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}'
  grep -h "host time of one call, median of 100 issued without waiting: [0-9]" $L | sed 's/(host time of one call, median of 100 issued without waiting: /  host /'
done
cd /tmp/new3
for f in cuda::mma:: cuda::wgmma::bf16_bf16::nn cuda::wgmma::tf32::nn cuda::sgemm::auto_any cuda::sgemm::edge_tight batch twice thrice; do
  FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-$f.log 2>&1; echo "tests $f rc=$?"
  grep "test result" $OUT/logs/t-$f.log; grep -E "FAILED|panicked" $OUT/logs/t-$f.log | head -3
done
bundle/bin/kernels --list 2>/dev/null | grep -E "^cuda::mma::bf16_bf16::nn::|^cuda::wgmma::tf32::nn::wgmma_128x128::|^cuda::mma::bf16_bf16::batch" | sed 's/: test$//' | head -50 > /tmp/mc.txt
FERROTILE_TESTS_FROM=/tmp/mc.txt timeout 100 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/logs/memcheck.log | tail -3
cd $OUT && tar czf logs.tgz logs && rm -rf logs
