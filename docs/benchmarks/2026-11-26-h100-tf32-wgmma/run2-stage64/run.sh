#!/usr/bin/env bash
# tf32 on the wgmma engine (operands staged rounded, k-major; run 2: the transposing stage in 64 x 64 tiles): GPU tests, sanitizer, bench-gemm_tc tf32 rows (+ bf16 4096³ as a check), ncu time split, sgemm classes (tiled transposing stage).
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
for f in cuda::wgmma::tf32 cuda::mma cuda::sgemm; do
  FERROTILE_REQUIRE_GPU=1 timeout 150 bundle/bin/kernels --include-ignored --test-threads=8 $f > $OUT/t-${f#cuda::}.log 2>&1; echo "$f rc=$?"; tail -2 $OUT/t-${f#cuda::}.log | head -1; grep -E "FAILED|panicked" $OUT/t-${f#cuda::}.log | head -10
done
FERROTILE_REQUIRE_GPU=1 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::tf32::nn::wgmma_128x128 > $OUT/sanitizer-memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-memcheck.log | tail -2
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ONLY="tf32,bf16→bf16 4096×4096×4096,×128×128×128,64×512×512×512,64×1024×1024×64,256×256×1024×64" timeout 260 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "gemm_tc rc=$?"; grep -E "^\| (tf32|bf16)" $OUT/gemm_tc.log | awk -F'|' '{print $2,$3,$4,$5,$7,$8}'
FERROTILE_BENCH_ONLY="tf32 4096" timeout 90 ncu --clock-control none -k regex:"gemm_stage|gemm_wgmma_tf32" -c 6 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed bundle/bin/bench-gemm_tc > $OUT/ncu.log 2>&1; echo "ncu rc=$?"; grep -E "gemm_|duration|throughput|active" $OUT/ncu.log | grep -v "^==" | awk '{$1=$1; print}' | cut -c1-150 | head -40
FERROTILE_BENCH_CLASSES=only timeout 150 bundle/bin/bench-sgemm > $OUT/sgemm.log 2>&1; echo "sgemm rc=$?"; grep -iE "transposed|odd|1000" $OUT/sgemm.log | head -20
cd $OUT && tar czf rest.tgz t-*.log sanitizer-memcheck.log ncu.log && rm -f t-*.log sanitizer-memcheck.log ncu.log; ls $OUT
