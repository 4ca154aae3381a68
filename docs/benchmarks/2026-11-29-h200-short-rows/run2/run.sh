#!/usr/bin/env bash
# H200: where 512 × 127³ spends the time beyond the 128³ call: ncu durations of the staging and GEMM launches (new build).
set -u
mkdir -p $OUT/logs
mkdir -p /tmp/new && tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED
cd /tmp/new
which nsys ncu
for s in "512×127×127×127" "512×128×128×128"; do
  FERROTILE_BENCH_ONLY="bf16→bf16 $s" timeout 150 ncu --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes.sum,launch__grid_size,launch__registers_per_thread -c 40 bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$s.log 2>&1; echo "ncu $s rc=$?"
  grep -E "^  [A-Za-z_]|gpu__time_duration" $OUT/logs/ncu-$s.log | cut -c1-110 | tail -40
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
