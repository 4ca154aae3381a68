#!/usr/bin/env bash
# H200: swapped tile with 9 stages (no epilogue buffers) against the committed 8-stage build in the same call;
# decode with B stored n x k; GPU tests of the swapped tile.
set -u
mkdir -p /tmp/old /tmp/new
tar xJf .gpu/old.tar.xz -C /tmp/old || echo UNTAR OLD FAILED
tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/new
timeout 150 bundle/bin/kernels wgmma_swap_64x128 > $OUT/tests-swap.log 2>&1; echo "=== tests rc=$?"; grep -E "test result|FAILED|panicked" $OUT/tests-swap.log | head -8
cd /tmp/old
FERROTILE_RESULTS=$OUT/results-old.jsonl FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×8192×8192 decode" timeout 120 bundle/bin/bench-gemm_tc > $OUT/bench-old.log 2>&1; echo "=== old bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench-old.log | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "mma_128x128 \|pp_128" | head -30
cd /tmp/new
FERROTILE_RESULTS=$OUT/results-new.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="decode" timeout 330 bundle/bin/bench-gemm_tc > $OUT/bench-new.log 2>&1; echo "=== new bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench-new.log | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "mma_128x128 \|pp_128" | head -70
