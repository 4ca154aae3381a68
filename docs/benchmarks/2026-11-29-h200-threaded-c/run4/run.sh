#!/usr/bin/env bash
# H200: every wgmma tile against Auto (THREADED_C_KTILES = 12 in this build) at shapes with C stored by the threads
# and their aligned twins, plain and fused (FERROTILE_BENCH_TILES).
set -u
mkdir -p $OUT/logs
mkdir -p /tmp/s4 && tar xJf .gpu/s4.tar.xz -C /tmp/s4 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/s4
L=$OUT/logs/b-tiles.log
FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="4095x14335x4096,4096x14336x4096,5119x5119x4096,5120x5120x4096,2000x3001x512,2000x3000x512,1000x4097x300,1000x4096x300,2047x2049x2045,2048x2048x2048" timeout 200 bundle/bin/bench-gemm_tc > $L 2>&1; echo "bench rc=$? t=$SECONDS"
grep -hE "^\| bf16" $L | awk -F'|' '{print $3,$4,$5,$7}'
cd $OUT && tar czf logs.tgz logs && rm -rf logs
