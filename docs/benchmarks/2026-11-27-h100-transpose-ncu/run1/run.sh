#!/usr/bin/env bash
# Transpose short output rows (rung 11, transpose_flat_e8192, Auto's pick) against the aligned rung at 8192^2: ncu memory
# and stall metrics of the committed kernels, to say what limits the short-row class (87-89 % of a copy in the tables).
set -u
mkdir -p /tmp/t && tar xJf .gpu/tr.tar.xz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd /tmp/t
FERROTILE_BENCH_SHAPES=524287x131,699051x150,131x524287,8192x8192 timeout 200 bundle/bin/bench-transpose > $OUT/bench-transpose.log 2>&1; echo "bench rc=$?"
grep -E "transpose_flat|transpose_lines_w128_g256|transpose_vec4_t64_b256 |fastest|copy" $OUT/bench-transpose.log | grep -v "n/a" | head -20
M=dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
for s in "524287x131 transpose_flat_e8192" "699051x150 transpose_flat_e8192" "131x524287 transpose_lines_w128_g256" "8192x8192 transpose_vec4_t64_b256"; do
  set -- $s
  FERROTILE_BENCH_SHAPES=$1 timeout 120 ncu -k regex:"^$2\$" -c 1 --metrics $M bundle/bin/bench-transpose > $OUT/ncu-$1-$2.log 2>&1; echo "ncu $1 $2 rc=$?"
  grep -vE "^==PROF==|^\s*$" $OUT/ncu-$1-$2.log | grep -E "dram__|lts__|l1tex__|sm__warps|smsp__|gpu__time|launch__" | awk '{print $1, $NF}'
done
