#!/usr/bin/env bash
# H200, the committed build: ncu (clocks not locked) of the first plain launch of the 128x256, ping-pong 128x128 and
# clustered ping-pong tiles at 4096^3 (tile probe): cycles, clock, L2 bytes; then the GPU cuda::wgmma cases.
set -u
mkdir -p /tmp/new && tar xJf .gpu/head.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cd /tmp/new
for k in nn_128x256_s4 nn_pp128_s6 nn_pp128_c2_s6; do
  FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_SHAPES=4096x4096x4096 timeout 60 ncu --clock-control none -k regex:"bf16_bf16_$k" -c 1 --section SpeedOfLight --metrics lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum --csv bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$k.csv 2> $OUT/logs/ncu-$k.err; echo "ncu $k rc=$?"
  grep -E "SM Frequency|Elapsed Cycles|\"Duration|lts__t_bytes|lts__t_sectors_srcunit|dram__bytes_read" $OUT/logs/ncu-$k.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
done
FERROTILE_REQUIRE_GPU=1 timeout 220 bundle/bin/kernels --include-ignored --test-threads=16 cuda::wgmma > $OUT/logs/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/logs/t-wgmma.log; echo "ok lines: $(grep -c '\.\.\. ok' $OUT/logs/t-wgmma.log)"; grep -E "FAILED|panicked" $OUT/logs/t-wgmma.log | head -5
cd $OUT && tar czf logs.tgz logs && rm -rf logs
