#!/usr/bin/env bash
# H200: the clustered ping-pong tile (wgmma_pp_128x128_c2: 2-CTA clusters sharing B by TMA multicast).
# GPU tests cuda::wgmma (all kernels: the body changed for every one), compute-sanitizer on the c2 cases,
# bench: 4096^3 compare + epilogue (plain/fused per tile, in turn), 8192x8192x1024 and 8192^3 epilogue, tile probe.
set -u
mkdir -p /tmp/new && tar xJf .gpu/c2.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 150 bundle/bin/kernels --include-ignored --test-threads=16 cuda::wgmma > $OUT/logs/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/logs/t-wgmma.log; grep -E "FAILED|panicked" $OUT/logs/t-wgmma.log | head -8
for tool in memcheck racecheck synccheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 70 compute-sanitizer --tool $tool bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_pp_128x128_c2::bias_gelu > $OUT/logs/san-$tool.log 2>&1; echo "$tool rc=$?"
done
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|test result" $OUT/logs/san-*.log
export FERROTILE_RESULTS=$OUT/results.jsonl
export FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×1024 epilogue,bf16→bf16 8192×8192×8192 epilogue"
FERROTILE_BENCH_SHAPES=4096x4096x4096,8192x8192x1024 timeout 300 bundle/bin/bench-gemm_tc > $OUT/logs/bench.log 2>&1; echo "bench rc=$?"
cd $OUT && tar czf logs.tgz logs
grep -E "^\| bf16|^\(fused" logs/bench.log | awk -F'|' '{print $3,$4,$5,$7,$8}' | sed 's/median of 7 in turn/in turn/; s/fused bias + GELU/fused/'
rm -rf logs
