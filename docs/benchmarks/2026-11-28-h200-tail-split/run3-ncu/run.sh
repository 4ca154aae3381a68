#!/usr/bin/env bash
# H200: ncu of Auto's decode kernel at 1x8192x8192 (the first wgmma launch of that bench row).
set -u
cd /tmp/h2
FERROTILE_BENCH_ONLY="1×8192×8192 decode" timeout 150 ncu -k regex:gemm_wgmma --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy bundle/bin/bench-gemm_tc > $OUT/ncu-decode.log 2>&1; echo "ncu rc=$?"
grep -E "gemm_wgmma|Duration|DRAM Through|Memory Through|L2 Cache Through|Compute \(SM\)|Stall|Warp Cycles|Grid Size|Registers|Achieved Occ|Mem Busy|Max Bandwidth|L1/TEX Hit|L2 Hit" $OUT/ncu-decode.log | head -40
