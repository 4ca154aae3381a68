#!/usr/bin/env bash
# wgmma TMA-store epilogue, committed build c857f0a: bench-gemm_tc rows not in call 3 (bf16→f32, f16→f16, tf32, odd shapes, decode), records.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_ONLY="bf16→f32,f16→f16,tf32,4093×4099×4091,1021×1019×1031,decode" timeout 420 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "=== rc=$?"
grep -E "^\| " $OUT/gemm_tc.log | grep -E "auto|vs aligned|wgmma_128x256 \|" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -60
ls $OUT
