#!/usr/bin/env bash
# Split-K inside the wgmma kernel, second call: GPU tests wgmma and mma (Auto), ncu of the decode kernels.
set -u
mkdir -p /tmp/ab/new
[ -x /tmp/ab/new/bundle/bin/kernels ] || tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
cd /tmp/ab/new
for f in cuda::wgmma cuda::mma; do
  FERROTILE_REQUIRE_GPU=1 timeout 250 bundle/bin/kernels --include-ignored --test-threads=8 $f > $OUT/t-${f#cuda::}.log 2>&1; echo "$f rc=$?"
  grep "test result" $OUT/t-${f#cuda::}.log; grep -E "FAILED|panicked|failed" $OUT/t-${f#cuda::}.log | head -10
done
FERROTILE_BENCH_ONLY="bf16→bf16 1×8192×8192 decode,bf16→bf16 64×14336×4096 decode" timeout 120 ncu --clock-control none -k regex:gemm_wgmma -c 6 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active bundle/bin/bench-gemm_tc > $OUT/ncu.log 2>&1; echo "ncu rc=$?"
grep -E "gemm_wgmma|duration|dram__|gmma" $OUT/ncu.log | head -40
gzip $OUT/t-*.log; ls $OUT
