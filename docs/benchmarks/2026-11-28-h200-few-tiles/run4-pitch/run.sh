#!/usr/bin/env bash
# H200: row-pitch sweep of the wgmma product (4096^3 padded rows; 4093x4099x4091 on padded operands), in turn with packed 4096^3.
set -u
mkdir -p /tmp/c4 && tar xJf .gpu/c4.tar.xz -C /tmp/c4 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/c4
FERROTILE_BENCH_PITCH=1 FERROTILE_BENCH_ONLY="no-other-rows" timeout 140 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "pitch" $OUT/bench.log
