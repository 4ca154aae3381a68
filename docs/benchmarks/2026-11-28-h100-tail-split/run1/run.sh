#!/usr/bin/env bash
# wgmma: the last, partial round's tiles split in parts (whole tiles first). Bench odd/aligned/5120 rows with
# Auto vs split_k(1) in the same run; GPU tests cuda::wgmma; memcheck on a tail-split case.
set -u
mkdir -p /tmp/tl
tar xJf .gpu/new.tar.xz -C /tmp/tl || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/tl
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_WHOLE_TILES=1 FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,4093×4099×4091,bf16→bf16 5120×5120×4096,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031" timeout 220 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench.log | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -40
FERROTILE_REQUIRE_GPU=1 timeout 230 bundle/bin/kernels --include-ignored --test-threads=12 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked|failed" $OUT/t-wgmma.log | head -10; grep -c "2100x2051x520 .* ok" $OUT/t-wgmma.log
FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256::2100x2051x520 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/memcheck.log | tail -3
gzip -f $OUT/t-wgmma.log; ls $OUT
