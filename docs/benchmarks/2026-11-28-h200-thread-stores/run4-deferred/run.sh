#!/usr/bin/env bash
# H200: C that TMA cannot write stored by the threads from the epilogue chunks: GPU tests, memcheck, odd factors, odd rows.
set -u
mkdir -p /tmp/p && tar xJf .gpu/thr3.tar.xz -C /tmp/p || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/p
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ODD_FACTORS=1 FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091,bf16→bf16 1021×1019×1031,bf16→bf16 1024×1024×1024,tf32 4093×4099×4091" timeout 200 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench.log | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "mma_128x128 \|pp_128" | head -60
t() { name=$1; lim=$2; shift 2; FERROTILE_REQUIRE_GPU=1 timeout $lim bundle/bin/kernels --include-ignored --test-threads=12 "$@" > $OUT/t-$name.log 2>&1; echo "$name rc=$?"; grep "test result" $OUT/t-$name.log; grep -E "FAILED|panicked" $OUT/t-$name.log | head -8; gzip -f $OUT/t-$name.log; }
t bf16 110 cuda::wgmma::bf16_bf16
t bf16f32 60 cuda::wgmma::bf16_f32
t f16 50 cuda::wgmma::f16
t tf32 100 cuda::wgmma::tf32
t mma 40 cuda::mma
t pdl 30 pdl
FERROTILE_REQUIRE_GPU=1 timeout 80 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/memcheck.log | tail -3; gzip -f $OUT/memcheck.log
for f in 200x130x131 4093x251x259; do FERROTILE_REQUIRE_GPU=1 timeout 40 compute-sanitizer --tool racecheck bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x128::$f > $OUT/racecheck-$f.log 2>&1; echo "racecheck $f rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|test result" $OUT/racecheck-$f.log | tail -2; done
