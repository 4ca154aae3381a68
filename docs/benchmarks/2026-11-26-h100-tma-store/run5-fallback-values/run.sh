#!/usr/bin/env bash
# The fallback wgmma epilogue on group_values (C not TMA-writable): GPU tests cuda::wgmma, bench of the odd shape (fallback path) and 4096³.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 170 bundle/bin/kernels --include-ignored --test-threads=8 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"; grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -5
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,4093×4099×4091" timeout 100 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "=== rc=$?"
grep -E "^\| bf16" $OUT/gemm_tc.log | grep -E "auto" | awk -F'|' '{print $3,$4,$5,$7}' | head -12
gzip $OUT/t-wgmma.log; ls $OUT
