#!/usr/bin/env bash
# H200: tmaboxes.cu -- the narrow decode tile's read of B with other TMA boxes (swizzle, box shape, L2 promotion).
set -u
mkdir -p $OUT/logs
nvcc -O3 -arch=sm_90a -o /tmp/tmaboxes .gpu/tmaboxes.cu -lcuda > $OUT/logs/nvcc.log 2>&1 || { cat $OUT/logs/nvcc.log; exit 1; }
timeout 120 /tmp/tmaboxes | tee $OUT/logs/tmaboxes.txt
