#!/usr/bin/env bash
# wgmma TMA-store epilogue, third build (rows of C a whole number of 16-byte pieces; fused values loaded without branches): GPU tests wgmma + mma, memcheck, bench-gemm_tc bf16 shapes with fused and batched (records), ncu at 64x1024x1024x64 and fused 4096³.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
for f in cuda::wgmma cuda::mma; do
  FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=8 $f > $OUT/t-${f#cuda::}.log 2>&1; echo "$f rc=$?"; grep "test result" $OUT/t-${f#cuda::}.log; grep -E "FAILED|panicked" $OUT/t-${f#cuda::}.log | head -10
done
FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256::b > $OUT/sanitizer-memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-memcheck.log | tail -2
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×8192,bf16→bf16 8192×8192×1024,bf16→bf16 4096×14336×4096,×128×128×128,64×512×512×512,64×1024×1024×64,256×256×1024×64" timeout 220 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "=== rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/gemm_tc.log | grep -E "auto|fused|plain|separate" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -40
unset FERROTILE_RESULTS
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096" timeout 60 ncu --clock-control none -k regex:gemm_wgmma -c 3 --metrics gpu__time_duration.sum bundle/bin/bench-gemm_tc > $OUT/ncu_fused.log 2>&1; echo "ncu rc=$?"; grep -E "gemm_wgmma|duration" $OUT/ncu_fused.log | head -8
cd $OUT && tar czf rest.tgz t-*.log ncu_fused.log && rm -f t-*.log ncu_fused.log; ls $OUT
