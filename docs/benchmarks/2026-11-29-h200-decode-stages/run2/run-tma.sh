#!/usr/bin/env bash
# H200: tmaread.cu -- the decode kernel's way of reading B (2-D tensor boxes, 128-byte swizzle, S stages of 16 KB
# on mbarriers) from 128, 256 and 512 blocks; 1-D bulk copies for comparison. Two runs.
set -u
mkdir -p $OUT/logs
nvcc -O3 -arch=sm_90a -o /tmp/tmaread .gpu/tmaread.cu -lcuda > $OUT/logs/nvcc-tma.log 2>&1 || cat $OUT/logs/nvcc-tma.log
/tmp/tmaread | tee $OUT/logs/tmaread.txt
/tmp/tmaread > $OUT/logs/tmaread2.txt; echo "second run:"; cat $OUT/logs/tmaread2.txt
