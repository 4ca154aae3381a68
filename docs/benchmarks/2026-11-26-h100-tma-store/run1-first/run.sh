#!/usr/bin/env bash
# wgmma TMA-store epilogue (Held removed): GPU tests cuda::wgmma, memcheck on TMA-store cases, bench-gemm_tc bf16 shapes two rounds, ncu at 64x1024x1024x64, SASS of the 128x128 kernel's spill.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cuobjdump -sass -fun gemm_wgmma_bf16_bf16_nn_128x128_s6 host/ptx/sm_90a.sm_90a.cubin > $OUT/sass128.txt 2>&1; grep -n "STL\|LDL" $OUT/sass128.txt | head -8
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=8 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"; grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -10
FERROTILE_REQUIRE_GPU=1 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256::b > $OUT/sanitizer-memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-memcheck.log | tail -2
export FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×8192,bf16→bf16 8192×8192×1024,bf16→bf16 4096×14336×4096,×128×128×128,64×512×512×512,64×1024×1024×64,256×256×1024×64"
for r in 1 2; do
  if [ $r = 1 ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
  timeout 120 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-$r.log 2>&1; echo "=== round $r rc=$?"
  grep -E "^\| bf16" $OUT/gemm_tc-$r.log | grep -E "auto|fused|plain|separate" | awk -F'|' '{print $3,$4,$5,$7}' | head -16
done
unset FERROTILE_RESULTS
FERROTILE_BENCH_ONLY="bf16→bf16 64×1024×1024×64" timeout 100 ncu --clock-control none -k regex:gemm_wgmma -c 1 --section WarpStateStats --section SpeedOfLight bundle/bin/bench-gemm_tc > $OUT/ncu_k64.log 2>&1; echo "ncu rc=$?"; grep -E "Duration|Issued Instruction|L2 Cache Throughput|DRAM Throughput" $OUT/ncu_k64.log | head -8
cd $OUT && tar czf rest.tgz t-wgmma.log gemm_tc-2.log ncu_k64.log sass128.txt && rm -f t-wgmma.log gemm_tc-2.log ncu_k64.log sass128.txt; ls $OUT
