#!/usr/bin/env bash
# H200: (1) readpattern.cu -- 128..1024 blocks reading a 8192 x 16384-byte matrix in column strips of 128 B .. 16 KB
# (whole rows), plain 16-byte loads, against a device copy: does the width a block reads of each row move HBM's rate?
# (2) ncu launch statistics of cuBLAS's decode kernel at 1x8192^2 (grid, block, shared memory, cluster) beside ours.
set -u
mkdir -p $OUT/logs /tmp/base && tar xJf .gpu/base.tar.xz -C /tmp/base || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
nvcc -O3 -arch=sm_90 -o /tmp/readpattern .gpu/readpattern.cu > $OUT/logs/nvcc.log 2>&1 || cat $OUT/logs/nvcc.log
/tmp/readpattern | tee $OUT/logs/readpattern.txt
/tmp/readpattern > $OUT/logs/readpattern2.txt; echo "second run:"; cat $OUT/logs/readpattern2.txt
cd /tmp/base
export FERROTILE_BENCH_ONLY="1×8192×8192 decode"
for k in nvjet sw16; do
  timeout 120 ncu --clock-control none -k regex:$k -c 1 --section LaunchStats --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,smsp__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min -o $OUT/logs/$k -f bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$k.log 2>&1; echo "ncu $k rc=$?"
  ncu -i $OUT/logs/$k.ncu-rep --page details --csv > $OUT/logs/$k-details.csv 2>&1
  ncu -i $OUT/logs/$k.ncu-rep --page raw --csv --metrics launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__registers_per_thread,launch__cluster_dim_x,launch__cluster_dim_y,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,sm__cycles_active.max,sm__cycles_active.min,gpu__time_duration.sum > $OUT/logs/$k-raw.csv 2>&1
  cat $OUT/logs/$k-raw.csv | cut -c1-600
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
