#!/usr/bin/env bash
# H200: why our decode kernel streams B slower than cuBLAS's (nvjet_sm90_tst_64x8_64x16_2x1_v_bz_NNT, 128 blocks,
# 34.9 us at 1x8192^2 in run 1). ncu sections of cuBLAS's kernel, of Auto's (stream-K) and of the swapped tile
# forced into 2 parts (the committed Auto's walk); then the 64x14336x4096 decode rows (Auto stream-K, split 1 =
# the committed Auto), ten back to back.
set -u
mkdir -p /tmp/new && tar xJf .gpu/head.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cd /tmp/new
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats --metrics dram__bytes_read.sum,lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,smsp__inst_executed.sum,l1tex__m_xbar2l1tex_read_bytes.sum"
FERROTILE_BENCH_ONLY="1×8192×8192 decode" timeout 50 ncu --clock-control none -k regex:nvjet -c 1 $S bundle/bin/bench-gemm_tc > $OUT/logs/ncu-cublas.txt 2>&1; echo "ncu cublas rc=$?"
FERROTILE_BENCH_ONLY="1×8192×8192 decode" timeout 50 ncu --clock-control none -k regex:gemm_wgmma -c 1 $S bundle/bin/bench-gemm_tc > $OUT/logs/ncu-stream.txt 2>&1; echo "ncu stream rc=$?"
FERROTILE_BENCH_ONLY="1×8192×8192 decode" FERROTILE_BENCH_DECODE_SPLITS_ONLY=1 FERROTILE_BENCH_DECODE_SPLITS=2 timeout 50 ncu --clock-control none -k regex:gemm_wgmma -c 1 $S bundle/bin/bench-gemm_tc > $OUT/logs/ncu-split2.txt 2>&1; echo "ncu split2 rc=$?"
for f in cublas stream split2; do echo "== $f"; grep -E "^  [a-z_]|Duration|DRAM Throughput|Memory Throughput|Elapsed Cycles|SM Active Cycles|Grid Size|Registers Per|Dynamic Shared|Achieved Occupancy|Issued Warp|No Eligible|dram__bytes|lts__t_sector|sm__cycles|smsp__inst|l1tex__m|L2 Hit|Mem Busy|Max Bandwidth|Warp Cycles Per Issued" $OUT/logs/ncu-$f.txt | head -40; done
FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY="64×14336×4096 decode" FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_DECODE_SPLITS=1 timeout 200 bundle/bin/bench-gemm_tc > $OUT/logs/bench.log 2>&1; echo "bench rc=$?"
grep "decode\|host time" $OUT/logs/bench.log | grep -v JSON | grep -v "128x128\|128x256\|mma_128" | cut -c1-150
cd $OUT && tar czf logs.tgz logs && rm -rf logs
