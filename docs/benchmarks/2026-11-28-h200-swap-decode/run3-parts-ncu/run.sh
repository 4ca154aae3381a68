#!/usr/bin/env bash
# H200: why finer split-K parts of the swapped decode tile cost so much: ncu (full set, SASS source counters) of one
# launch of 1x8192^2 forced into 2, 4 and 8 parts (first launch of each; clocks at ncu's base), and the bench times.
set -u
mkdir -p /tmp/p && tar xJf .gpu/prof.tar.xz -C /tmp/p || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/p
FERROTILE_BENCH_ONLY="1×8192×8192 decode" FERROTILE_BENCH_DECODE_SPLITS=2,4,8 FERROTILE_BENCH_DECODE_SPLITS_ONLY=1 timeout 90 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "bench rc=$?"
grep -E "^\| bf16" $OUT/bench.log | awk -F'|' '{print $3,$4,$5,$7}'
for s in 2 4 8; do
  FERROTILE_BENCH_ONLY="1×8192×8192 decode" FERROTILE_BENCH_DECODE_SPLITS=$s FERROTILE_BENCH_DECODE_SPLITS_ONLY=1 timeout 150 ncu --set full --import-source no -k regex:sw64 -c 1 -o /tmp/rep$s bundle/bin/bench-gemm_tc > $OUT/ncu$s.log 2>&1; echo "ncu $s rc=$?"
  ncu -i /tmp/rep$s.ncu-rep --page details --csv > $OUT/details$s.csv 2>&1
  ncu -i /tmp/rep$s.ncu-rep --page source --csv --print-source sass > $OUT/sass$s.csv 2>&1
  grep -E '"Duration"|"DRAM Throughput"|"Elapsed Cycles"|"Executed Ipc Active"|"Achieved Occupancy"' $OUT/details$s.csv | awk -F'","' '{print $(NF-2), $NF}' | head -8
done
cd $OUT && xz -9 sass*.csv; ls -la $OUT
