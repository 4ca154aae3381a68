#!/usr/bin/env bash
# H200: the fused-bias build (same bundle as the H100 call): wgmma GPU tests, bf16 4096³ three rounds (issue 14's 100 % target), 8192³, the other two large shapes, the fused epilogue rows.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=8 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"; grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -10
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×8192,bf16→bf16 8192×8192×1024,bf16→bf16 4096×14336×4096,epilogue" timeout 200 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "=== rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/gemm_tc.log | grep -E "auto|fused|plain|separate|cuBLAS" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -40
unset FERROTILE_RESULTS
for r in 2 3; do
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096" timeout 60 bundle/bin/bench-gemm_tc > $OUT/gemm_tc$r.log 2>&1; echo "=== round $r rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/gemm_tc$r.log | grep -E "auto|cuBLAS|wgmma_128x256" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -8
done
cd $OUT && gzip t-wgmma.log; ls $OUT
