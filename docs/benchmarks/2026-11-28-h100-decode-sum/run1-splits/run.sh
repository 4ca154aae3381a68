#!/usr/bin/env bash
# Decode: k forced into 4–32 parts on the wgmma tiles (Gemm::split_k now reaches the wgmma engine), persistent grid
# against one block per unit (FERROTILE_EXP_GRID=units, an experiment knob), one call and ten back to back; ncu of the
# per-SM active cycles (the spread = the tail).
set -u
mkdir -p /tmp/ds
tar xJf .gpu/new.tar.xz -C /tmp/ds || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ds
export FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_DECODE_SPLITS=4,8,16,32
show() { grep -E "decode" $1 | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}'; }
FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×8192×8192 decode" timeout 130 bundle/bin/bench-gemm_tc > $OUT/r1-persistent.log 2>&1; echo "=== r1 rc=$?"; show $OUT/r1-persistent.log
FERROTILE_EXP_GRID=units FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×8192×8192 decode" timeout 130 bundle/bin/bench-gemm_tc > $OUT/r2-units.log 2>&1; echo "=== r2 rc=$?"; show $OUT/r2-units.log
FERROTILE_BENCH_ONLY="16×8192×8192 decode,64×14336×4096 decode" timeout 130 bundle/bin/bench-gemm_tc > $OUT/r3-persistent.log 2>&1; echo "=== r3 rc=$?"; show $OUT/r3-persistent.log
unset FERROTILE_BENCH_BACK_TO_BACK
M="gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_elapsed.max,launch__grid_size"
FERROTILE_BENCH_DECODE_SPLITS= FERROTILE_BENCH_ONLY="1×8192×8192 decode" timeout 60 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_128x128 -c 3 --metrics $M bundle/bin/bench-gemm_tc > $OUT/ncu-auto.log 2>&1; echo "ncu rc=$?"
FERROTILE_EXP_SPLITS=16 FERROTILE_EXP_GRID=units FERROTILE_BENCH_DECODE_SPLITS= FERROTILE_BENCH_ONLY="1×8192×8192 decode" timeout 60 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_128x128 -c 3 --metrics $M bundle/bin/bench-gemm_tc > $OUT/ncu-s16-units.log 2>&1; echo "ncu rc=$?"
for f in $OUT/ncu-*.log; do echo "== $f"; grep -E "grid_size|duration|dram__|cycles" $f | head -21; done
ls $OUT
