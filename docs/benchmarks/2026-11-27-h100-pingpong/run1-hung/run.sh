#!/usr/bin/env bash
# Ping-pong consumers (wgmma_pp_128x128): GPU tests cuda::wgmma, racecheck + memcheck on the ping-pong bias cases, bench epilogue rows (plain/fused per tile) and the large bf16 shapes per tile, two rounds.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 170 bundle/bin/kernels --include-ignored --test-threads=8 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"; grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -10
for tool in racecheck memcheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 50 compute-sanitizer --tool $tool --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_pp_128x128::bias_gelu > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$?"; grep -E "test result|ERROR SUMMARY|RACECHECK SUMMARY" $OUT/sanitizer-$tool.log | tail -3
done
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_ONLY="epilogue,bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×8192,bf16→bf16 8192×8192×1024,bf16→bf16 4096×14336×4096" timeout 190 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "=== rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/gemm_tc.log | awk -F'|' '{print $2,$3,$4,$5,$7,$8}' | head -60
unset FERROTILE_RESULTS
FERROTILE_BENCH_ONLY="epilogue" timeout 90 bundle/bin/bench-gemm_tc > $OUT/gemm_tc2.log 2>&1; echo "=== round 2 rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/gemm_tc2.log | grep -E "fused|plain|separate" | awk -F'|' '{print $2,$3,$4,$5,$7,$8}' | head -30
cd $OUT && tar czf rest.tgz t-*.log && rm -f t-*.log; ls $OUT
