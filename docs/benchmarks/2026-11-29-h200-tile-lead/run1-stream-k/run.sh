#!/usr/bin/env bash
# H200: stream-K on the cooperative tiles (experimental build s1, runtime flag): GPU tests of the stream_k cases,
# then every tile forced (and the cooperative ones with stream-K) at shapes whose tiles are uneven rounds.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
mkdir -p /tmp/s1 && tar xJf .gpu/s1.tar.xz -C /tmp/s1 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/s1
S="1536x1536x4096,3000x3000x3000,2048x2048x1024,2560x2560x4096,3072x3072x3072,1024x1024x8192,4096x4096x4096,6144x6144x2048,8192x8192x1024,5000x5000x700,1000x1000x1000,2048x2048x8192"
FERROTILE_RESULTS=$OUT/logs/a-1.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 200 bundle/bin/bench-gemm_tc > $OUT/logs/a-1.log 2>&1; echo "a 1 rc=$? t=$SECONDS"
timeout 200 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator stream_k > $OUT/logs/t-stream.log 2>&1; echo "test stream_k rc=$? t=$SECONDS"; tail -2 $OUT/logs/t-stream.log
grep -E "FAILED|panicked" $OUT/logs/t-stream.log | head -5
