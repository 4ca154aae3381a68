#!/usr/bin/env bash
# H200: (1) where the narrow decode kernel (wgmma_swap_16x128) waits at 1x8192^2 -- ncu WarpStateStats,
# SourceCounters (PC sampling), memory workload -- and cuBLAS's decode kernel's warp states for comparison;
# (2) the 235 cuda::wgmma GPU cases run 2's 200-s limit cut, on the same (new) build.
# (Step 2 did not run: the test harness takes one filter, not a list of names.)
set -u
mkdir -p /tmp/new $OUT/logs
tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
R=$(pwd)
cd /tmp/new
export FERROTILE_BENCH_ONLY="1×8192×8192 decode"
S="--section WarpStateStats --section SourceCounters --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy"
timeout 120 ncu --clock-control none -k regex:sw16 -c 1 $S -o $OUT/logs/sw16 -f bundle/bin/bench-gemm_tc > $OUT/logs/ncu-sw16.log 2>&1; echo "ncu sw16 rc=$?"
timeout 120 ncu --clock-control none -k regex:nvjet -c 1 --section WarpStateStats --section SpeedOfLight --section MemoryWorkloadAnalysis -o $OUT/logs/cublas -f bundle/bin/bench-gemm_tc > $OUT/logs/ncu-cublas.log 2>&1; echo "ncu cublas rc=$?"
for r in sw16 cublas; do ncu -i $OUT/logs/$r.ncu-rep --page details --csv > $OUT/logs/$r-details.csv 2>&1; done
ncu -i $OUT/logs/sw16.ncu-rep --page source --csv --print-source sass > $OUT/logs/sw16-src.csv 2> $OUT/logs/sw16-src.err; echo "src rc=$?"
# (a python summary of the top stalled SASS instructions followed; summary.txt has its output)
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --exact --test-threads=16 $(cat $R/.gpu/left.txt) > $OUT/logs/t-left.log 2>&1; echo "left tests rc=$?"
cd $OUT && tar czf logs.tgz logs && rm -rf logs
