#!/usr/bin/env bash
# Profile the wgmma engine's per-tile overhead: 64x1024x1024x64 (Bt) strided batch, Auto (128x256 nt), and 8192x8192x1024.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
for shape in "64×1024×1024×64" "8192×8192×1024"; do
  tag=$(echo $shape | tr -c 'a-z0-9' '_' | cut -c1-20)
  FERROTILE_BENCH_ONLY="bf16→bf16 $shape" timeout 150 ncu --clock-control none -k regex:gemm_wgmma -c 1 --set full --import-source no -o $OUT/p_$tag bundle/bin/bench-gemm_tc > $OUT/ncu_$tag.log 2>&1; echo "ncu $shape rc=$?"
  ncu -i $OUT/p_$tag.ncu-rep --page details --csv > $OUT/details_$tag.csv 2>/dev/null
  ncu -i $OUT/p_$tag.ncu-rep --page source --csv --print-source sass > $OUT/sass_$tag.csv 2>/dev/null
  grep -E '"(Duration|Elapsed Cycles|Executed Instructions|Issue Slots Busy|Achieved Occupancy|Registers Per Thread|Warp Cycles Per Issued Instruction|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput)"' $OUT/details_$tag.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | head -20
  grep -iE 'stall|Stall' $OUT/details_$tag.csv | awk -F'","' '{print $(NF-2), $NF}' | head -30
done
cd $OUT && tar czf rest.tgz *.ncu-rep ncu_*.log && rm -f *.ncu-rep ncu_*.log; ls -la $OUT
