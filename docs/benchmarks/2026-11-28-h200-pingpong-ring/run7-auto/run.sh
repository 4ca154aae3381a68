#!/usr/bin/env bash
# H200, Auto weighing the epilogue (the ping-pong tile where it hides more than its narrower tile costs):
# the odd shape 4093x4099x4091 (Auto now ping-pong; every tile forced, the 128x256 one with Auto's old split);
# probe 4096x4096x2048 and 5120x5120x4096 (each tile whole, plain and fused); the epilogue rows at 4096^3,
# 8192x8192x1024, 8192^3 (Auto plain and fused in turn); GPU tests cuda::wgmma and cuda::mma.
set -u
mkdir -p /tmp/new && tar xJf .gpu/auto.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cd /tmp/new
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_SHAPES=4096x4096x2048,5120x5120x4096 FERROTILE_BENCH_ONLY="bf16→bf16 4093×4099×4091,bf16→bf16 4096×4096×4096 epilogue,bf16→bf16 8192×8192×1024 epilogue,bf16→bf16 8192×8192×8192 epilogue" timeout 200 bundle/bin/bench-gemm_tc > $OUT/logs/bench.log 2>&1; echo "bench rc=$?"
unset FERROTILE_RESULTS
FERROTILE_REQUIRE_GPU=1 timeout 230 bundle/bin/kernels --include-ignored --test-threads=16 cuda::wgmma > $OUT/logs/t-wgmma.log 2>&1; echo "wgmma rc=$?"
FERROTILE_REQUIRE_GPU=1 timeout 80 bundle/bin/kernels --include-ignored --test-threads=16 cuda::mma > $OUT/logs/t-mma.log 2>&1; echo "mma rc=$?"
cd $OUT && tar czf logs.tgz logs
grep -E "^\| bf16" logs/bench.log | awk -F'|' '{print $3,$4,$5,$7}' | sed 's/every tile whole/whole/; s/median of 7 in turn/in turn/; s/fused bias + GELU/fused/'
grep "test result" logs/t-wgmma.log logs/t-mma.log; grep -E "FAILED|panicked" logs/t-*.log | head -10
rm -rf logs
