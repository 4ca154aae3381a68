#!/usr/bin/env bash
# H200: wgmma kernels launched as programmatic dependents (griddepcontrol): GPU tests, then decode and 4096^3 one call / back to back.
set -u
mkdir -p /tmp/p && tar xJf .gpu/pdl.tar.xz -C /tmp/p || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/p
FERROTILE_REQUIRE_GPU=1 timeout 100 bundle/bin/kernels --include-ignored --test-threads=12 cuda::wgmma::bf16_bf16 > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked|failed" $OUT/t-wgmma.log | head -10; grep -c "\.\.\. ok" $OUT/t-wgmma.log; gzip -f $OUT/t-wgmma.log
timeout 40 bundle/bin/kernels thrice > $OUT/t-thrice.log 2>&1; echo "thrice rc=$?"; grep "test result" $OUT/t-thrice.log
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×14336×4096 decode,16×8192×8192 decode,bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×1024" timeout 270 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench.log | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "mma_128x128 \|pp_128\|wgmma_128x128" | head -60
