#!/usr/bin/env bash
# `unit_fragment` (one index function for the split-K rows and columns of a consumer's registers; the sm_90a PTX
# changed): GPU tests cuda::wgmma and cuda::mma, memcheck on the split fused cases, decode (split-K) and the main
# bf16 rows, one round each (no records: a check that nothing moved).
set -u
mkdir -p /tmp/uf
tar xJf .gpu/new.tar.xz -C /tmp/uf || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/uf
for f in cuda::wgmma cuda::mma; do
  FERROTILE_REQUIRE_GPU=1 timeout $([ $f = cuda::wgmma ] && echo 220 || echo 110) bundle/bin/kernels --include-ignored --test-threads=8 $f > $OUT/t-$f.log 2>&1; echo "$f rc=$?"
  grep "test result" $OUT/t-$f.log; grep -E "FAILED|panicked|failed" $OUT/t-$f.log | head -10
done
FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x128::bias_gelu::45x7 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/memcheck.log | tail -3
FERROTILE_BENCH_ONLY="decode" timeout 110 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-decode.log 2>&1; echo "=== decode rc=$?"
grep -E "decode" $OUT/gemm_tc-decode.log | grep -v JSON | grep -E "copy|auto|cuBLAS" | awk -F'|' '{print $3,$4,$5,$7}' | head -20
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×1024" timeout 80 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-main.log 2>&1; echo "=== main rc=$?"
grep -E "^\| bf16" $OUT/gemm_tc-main.log | grep -v "in turn" | awk -F'|' '{print $3,$4,$5,$7}' | head -20
cd $OUT && gzip t-*.log; ls $OUT
