#!/usr/bin/env bash
# H200: bulkdecode.cu, a prototype decode product whose weight rows arrive by 1-D bulk copies of 2 KB (m = 1, 8,
# 16; W 8192 x 8192, 14336 x 4096, 4096 x 14336 stored n x k), one call and ten in a row, against a device copy.
# Then the committed build's decode rows with B stored n x k (the same layout) for comparison in this call.
set -u
mkdir -p $OUT/logs /tmp/base && tar xJf .gpu/base.tar.xz -C /tmp/base || echo UNTAR FAILED
nvcc -O3 -arch=sm_90a -o /tmp/bulkdecode .gpu/bulkdecode.cu > $OUT/logs/nvcc.log 2>&1 || { cat $OUT/logs/nvcc.log; exit 1; }
timeout 120 /tmp/bulkdecode | tee $OUT/logs/bulkdecode.txt
( cd /tmp/base && FERROTILE_BENCH_ONLY="1×8192×8192 (Bᵀ) decode" FERROTILE_BENCH_BACK_TO_BACK=1 timeout 60 bundle/bin/bench-gemm_tc > $OUT/logs/bench-bt.log 2>&1 )
grep -E "device copy|cuBLAS:|auto \(|10 calls" $OUT/logs/bench-bt.log | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}'
