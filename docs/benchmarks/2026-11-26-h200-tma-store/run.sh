#!/usr/bin/env bash
# wgmma TMA-store epilogue (build c857f0a) on an H200: bench-gemm_tc bf16 main shapes, the odd shape, decode (records).
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×8192,bf16→bf16 8192×8192×1024,bf16→bf16 4096×14336×4096,decode,4093×4099×4091" timeout 420 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "=== rc=$?"
grep -E "^\| " $OUT/gemm_tc.log | grep -E "auto|vs aligned" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -30
ls $OUT
