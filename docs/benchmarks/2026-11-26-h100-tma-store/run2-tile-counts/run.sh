#!/usr/bin/env bash
# wgmma TMA-store epilogue, final build (32-bit tile counts, no spills): GPU tests cuda::wgmma + cuda::mma, bench-gemm_tc bf16 shapes (batched, fused) and tf32, ncu at 64x1024x1024x64.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
for f in cuda::wgmma cuda::mma; do
  FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=8 $f > $OUT/t-${f#cuda::}.log 2>&1; echo "$f rc=$?"; grep "test result" $OUT/t-${f#cuda::}.log; grep -E "FAILED|panicked" $OUT/t-${f#cuda::}.log | head -10
done
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_ONLY="×128×128×128,64×512×512×512,64×1024×1024×64,256×256×1024×64,bf16→bf16 8192×8192×1024,bf16→bf16 4096×4096×4096,tf32" timeout 300 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "=== rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/gemm_tc.log | grep -E "auto|fused|plain|separate" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -40
cd $OUT && tar czf rest.tgz t-*.log && rm -f t-*.log; ls $OUT
