#!/usr/bin/env bash
# Split-K inside the wgmma kernel: decode (one call and ten back to back) and the bf16 4096^3 / 8192^3 rows. Asked for
# an H200 (kind nvidia-h200); the call ran on an H100 (gpu.txt), so this is a fourth H100 call of the build.
set -u
mkdir -p /tmp/ab/new
[ -x /tmp/ab/new/bundle/bin/kernels ] || tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=8 cuda::wgmma::bf16_bf16::nn::wgmma_128x128 > $OUT/t-wgmma.log 2>&1; echo "tests rc=$?"; grep "test result" $OUT/t-wgmma.log
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="decode" timeout 250 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-decode.log 2>&1; echo "=== decode rc=$?"
grep -E "decode" $OUT/gemm_tc-decode.log | grep -v JSON | grep -E "copy|auto|cuBLAS" | awk -F'|' '{print $3,$4,$5,$7}' | head -40
FERROTILE_RESULTS=$OUT/results-main.jsonl FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×8192" timeout 200 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-main.log 2>&1; echo "=== main rc=$?"
grep -E "^\| bf16" $OUT/gemm_tc-main.log | grep -v "in turn" | awk -F'|' '{print $3,$4,$5,$7}' | head -24
ls $OUT
