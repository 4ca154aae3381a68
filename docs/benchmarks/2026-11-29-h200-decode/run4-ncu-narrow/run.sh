#!/usr/bin/env bash
# H200, the committed build (run 3's bundle): ncu of the narrow swapped tile at 1x8192^2 (Auto's walk: two parts),
# against the 128x64 swapped tile in two parts; the decode rows run 3's limit cut (64x14336x4096 back to back, the
# B-transposed shapes).
set -u
mkdir -p /tmp/new && tar xJf .gpu/head.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cd /tmp/new
M=dram__bytes_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,smsp__inst_executed.sum,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
for k in sw16 sw64; do
  FERROTILE_BENCH_ONLY="1×8192×8192 decode" FERROTILE_BENCH_DECODE_SPLITS_ONLY=1 FERROTILE_BENCH_DECODE_SPLITS=2 timeout 80 ncu --clock-control none -k regex:$k -c 1 --metrics $M bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$k.txt 2>&1; echo "ncu $k rc=$?"
  grep -E "^  [a-z_]|__" $OUT/logs/ncu-$k.txt | head -10
done
FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY="64×14336×4096 decode,(Bᵀ) decode" FERROTILE_BENCH_BACK_TO_BACK=1 timeout 200 bundle/bin/bench-gemm_tc > $OUT/logs/bench.log 2>&1; echo "bench rc=$?"
grep "decode\|host time" $OUT/logs/bench.log | grep -v JSON | grep -v "128x128\|128x256\|mma_128\|plain launch" | cut -c1-150
cd $OUT && tar czf logs.tgz logs && rm -rf logs
