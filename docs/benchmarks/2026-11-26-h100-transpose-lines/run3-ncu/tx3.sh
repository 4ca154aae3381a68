#!/usr/bin/env bash
# What limits rung 10 on moderately thin odd shapes: ncu of transpose_lines_w128 on 8191x8193 (93 %), 1048573x67 and
# 67x1048573 (72-76 %), 262147x257 (94 %), 257x262147 (75 %); the CUDA C probe on the same shapes.
set -u
mkdir -p /tmp/t && tar xzf .gpu/new.tar.gz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 docs/benchmarks/2026-11-26-h100-transpose-probe/probe.py 67x1048573 1048573x67 257x262147 262147x257 2>&1 | grep -v "skew_in\|copy kernel" > $OUT/probe.log; cat $OUT/probe.log | grep -E "copy|skew_vec128 |tile128x32|tile32x32"
cd /tmp/t
S=smsp__average_warps_issue_stalled
M="dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__d_sectors_fill_sysmem.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum"
for k in long_scoreboard barrier lg_throttle; do M="$M,${S}_${k}_per_issue_active.ratio"; done
FERROTILE_BENCH_SHAPES=8191x8193,1048573x67,67x1048573,262147x257,257x262147 timeout 400 ncu --clock-control none -k regex:transpose_lines_w128 -c 5 --metrics "$M" bundle/bin/bench-transpose > $OUT/ncu.log 2>&1; echo "ncu rc=$?"
grep -vE "^==PROF==|^\s*$" $OUT/ncu.log | grep -E "transpose_lines|dram__|lts__|sm__warps|inst_exec|gpu__time|stalled" | head -90
