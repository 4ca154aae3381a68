#!/usr/bin/env bash
# H200, the committed ring build (04d365e) + bench probe with fused rows: where the ping-pong tile beats the
# 128x256 one, plain and with the fused bias + GELU (probe shapes, every tile whole; the epilogue rows at four
# shapes); compute-sanitizer racecheck and memcheck on the ping-pong bias_gelu cases.
set -u
mkdir -p /tmp/new && tar xJf .gpu/dec.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cd /tmp/new
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_SHAPES=4096x14336x4096,5120x5120x4096,8192x8192x8192,16384x4096x1024,2048x2048x2048 FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096 epilogue,bf16→bf16 8192×8192×1024 epilogue,bf16→bf16 8192×8192×8192 epilogue,bf16→f32 4096×4096×4096 epilogue" timeout 300 bundle/bin/bench-gemm_tc > $OUT/logs/bench.log 2>&1; echo "bench rc=$?"
unset FERROTILE_RESULTS
FERROTILE_REQUIRE_GPU=1 timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_pp_128x128::bias_gelu > $OUT/logs/racecheck.log 2>&1; echo "racecheck rc=$?"
FERROTILE_REQUIRE_GPU=1 timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_pp_128x128::bias_gelu > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$?"
cd $OUT && tar czf logs.tgz logs
grep -E "test result|RACECHECK SUMMARY" logs/racecheck.log | tail -2; grep -E "test result|ERROR SUMMARY" logs/memcheck.log | tail -2
grep -E "^\| bf16" logs/bench.log | awk -F'|' '{print $2,$3,$4,$5,$7}' | sed 's/every tile whole/whole/; s/median of 7 in turn/in turn/; s/fused bias + GELU/fused/'
rm -rf logs
