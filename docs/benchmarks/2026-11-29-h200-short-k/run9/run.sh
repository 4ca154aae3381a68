#!/usr/bin/env bash
# H200: compute-sanitizer memcheck on the new restaged_a cases (k5), bounded.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
mkdir -p /tmp/k5 && tar xJf .gpu/k5.tar.xz -C /tmp/k5 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/k5
FERROTILE_REQUIRE_GPU=1 timeout 110 compute-sanitizer --tool memcheck --report-api-errors no --print-limit 20 bundle/bin/kernels restaged_a --skip emulator --include-ignored --test-threads=16 > $OUT/logs/memcheck-restaged-a.log 2>&1; echo "memcheck rc=$? t=$SECONDS"
grep -E "ERROR SUMMARY|test result" $OUT/logs/memcheck-restaged-a.log | tail -3
