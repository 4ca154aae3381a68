#!/usr/bin/env bash
# H200, Auto weighing the epilogue: the odd shape 4093x4099x4091 (Auto now ping-pong; each tile forced, the
# 128x256 one split as Auto split it before) against its aligned 4096^3 (which the bench times first).
set -u
mkdir -p /tmp/new && tar xJf .gpu/auto.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd /tmp/new
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_ONLY="bf16→bf16 4093×4099×4091,bf16→bf16 4096×4096×4096" timeout 150 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "bench rc=$?"
grep -E "^\| bf16" $OUT/bench.log | grep -v epilogue | awk -F'|' '{print $3,$4,$5,$7}' | grep -E "4093|4096×4096×4096   (auto|wgmma|cuBLAS)"
