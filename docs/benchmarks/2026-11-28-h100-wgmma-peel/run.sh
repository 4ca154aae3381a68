#!/usr/bin/env bash
# wgmma thin edges peeled (host only: the bulk of whole tiles, then C's thin rows/columns as launches of their own).
# The odd-shape rows (peeled vs not, same run), GPU tests cuda::wgmma (1030x4100x200 peels), memcheck on a peeled case.
set -u
mkdir -p /tmp/pe
tar xJf .gpu/new.tar.xz -C /tmp/pe || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/pe
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031" timeout 110 bundle/bin/bench-gemm_tc > $OUT/odd.log 2>&1; echo "=== odd rc=$?"
grep -E "^\| bf16" $OUT/odd.log | grep -v "in turn" | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "f16→f16" | head -30
FERROTILE_REQUIRE_GPU=1 timeout 230 bundle/bin/kernels --include-ignored --test-threads=12 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked|failed" $OUT/t-wgmma.log | head -10; grep -c "1030x4100x200 .* ok" $OUT/t-wgmma.log
FERROTILE_REQUIRE_GPU=1 timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256::1030x4100x200 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/memcheck.log | tail -3
gzip -f $OUT/t-wgmma.log; ls $OUT
