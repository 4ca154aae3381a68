#!/usr/bin/env bash
# H200: ldgdecode.cu, a prototype decode product reading the weights (stored n x k) with plain 16-byte loads
# straight into mma.sync fragments; m = 1, 8, 16; one call and ten in a row against a device copy.
set -u
mkdir -p $OUT/logs
nvcc -O3 -arch=sm_90a -o /tmp/ldgdecode .gpu/ldgdecode.cu > $OUT/logs/nvcc.log 2>&1 || { cat $OUT/logs/nvcc.log; exit 1; }
timeout 200 /tmp/ldgdecode | tee $OUT/logs/ldgdecode.txt
