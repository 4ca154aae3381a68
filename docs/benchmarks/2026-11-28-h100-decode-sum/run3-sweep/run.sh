#!/usr/bin/env bash
# Decode with the part-major split-K sum: k forced into 4 and 8 parts (Gemm::split_k), one call and ten back to back.
set -u
mkdir -p /tmp/dm
[ -x /tmp/dm/bundle/bin/kernels ] || tar xJf .gpu/new.tar.xz -C /tmp/dm || echo UNTAR FAILED
cd /tmp/dm
show() { grep -E "$2" $1 | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}'; }
export FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_DECODE_SPLITS=4,8
FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×8192×8192 decode" timeout 200 bundle/bin/bench-gemm_tc > $OUT/sweep.log 2>&1; echo "=== rc=$?"; show $OUT/sweep.log decode
