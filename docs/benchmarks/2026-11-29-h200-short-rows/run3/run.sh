#!/usr/bin/env bash
# H200: the short-row copy with its slots stepped without divisions (new2) against the first form (new), two rounds in
# turn; ncu sections of the staging and GEMM launches at 512 × 127³ and 512 × 128³ (new2); the long-row copy's time.
set -u
mkdir -p $OUT/logs
for b in new new2; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR FAILED $b; done
ONLY="bf16→bf16 512×127×127×127,bf16→bf16 512×128×128×128,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031,bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091"
for r in new new2 new new2; do
  cd /tmp/$r
  L=$OUT/logs/b-$r-$SECONDS.log
  FERROTILE_RESULTS=$OUT/logs/results-$r.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 100 bundle/bin/bench-gemm_tc > $L 2>&1; echo "bench $r rc=$? t=$SECONDS"
  grep -hE "^\| bf16" $L | grep -E "512×12[78].*(auto|cuBLAS|pp_128x128 )|vs aligned" | awk -F'|' '{print $3,$4,$5,$6,$7}'
done
cd /tmp/new2
S="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
FERROTILE_BENCH_ONLY="bf16→bf16 512×127×127×127" timeout 100 ncu $S -k regex:"gemm_stage2|gemm_wgmma" -c 2 bundle/bin/bench-gemm_tc > $OUT/logs/ncu-127.log 2>&1; echo "ncu 127 rc=$?"
FERROTILE_BENCH_ONLY="bf16→bf16 512×128×128×128" timeout 100 ncu $S -k regex:"gemm_wgmma" -c 1 bundle/bin/bench-gemm_tc > $OUT/logs/ncu-128.log 2>&1; echo "ncu 128 rc=$?"
for s in 4096×4099×4096 4093×4099×4091; do
  FERROTILE_BENCH_ONLY="bf16→bf16 $s" timeout 100 ncu --metrics gpu__time_duration.sum -k regex:"gemm_stage" -c 3 bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$s.log 2>&1; echo "ncu $s rc=$?"
  grep -E "^  gemm_stage|gpu__time_duration" $OUT/logs/ncu-$s.log | cut -c1-80
done
grep -E "^  gemm|Duration|Elapsed Cycles|Memory Throughput|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Issued Warp|No Eligible|L2 Hit|Mem Busy|Max Bandwidth" $OUT/logs/ncu-127.log $OUT/logs/ncu-128.log | cut -c1-120
cd $OUT && tar czf logs.tgz logs && rm -rf logs
