#!/usr/bin/env bash
# H200: both operands staged in one launch (gemm_stage2_*): odd rows, GPU tests, the staging kernels' device time (ncu).
set -u
mkdir -p /tmp/p && tar xJf .gpu/st2.tar.xz -C /tmp/p || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/p
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091,bf16→bf16 1021×1019×1031,bf16→bf16 1024×1024×1024,tf32 4093×4099×4091" timeout 120 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench.log | grep -E "vs aligned|no staging|cuBLAS|auto \(" | awk -F'|' '{print $3,$4,$5,$7}' | head -30
t() { name=$1; lim=$2; shift 2; FERROTILE_REQUIRE_GPU=1 timeout $lim bundle/bin/kernels --include-ignored --test-threads=12 "$@" > $OUT/t-$name.log 2>&1; echo "$name rc=$?"; grep "test result" $OUT/t-$name.log; grep -E "FAILED|panicked" $OUT/t-$name.log | head -8; gzip -f $OUT/t-$name.log; }
t bf16 100 cuda::wgmma::bf16_bf16
t f16 50 cuda::wgmma::f16
t tf32nt 50 cuda::wgmma::tf32::nt
t mma 30 cuda::mma
t pdl 20 pdl
FERROTILE_BENCH_ONLY="bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031" timeout 60 ncu --kernel-name regex:'gemm_stage' --launch-count 20 --metrics gpu__time_duration.sum --csv bundle/bin/bench-gemm_tc > $OUT/ncu-1021.csv 2> $OUT/ncu-1021.err; echo "ncu rc=$?"
grep -E "gemm_stage" $OUT/ncu-1021.csv | awk -F'","' '{print $5, $(NF)}' | head -8
