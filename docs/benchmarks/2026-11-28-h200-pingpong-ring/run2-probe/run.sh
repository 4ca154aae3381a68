#!/usr/bin/env bash
# H200: the ping-pong tile's k-loop with one, two, four and eight tiles per block (every tile whole), against the
# cooperative 128x128 and 128x256 tiles and cuBLAS; ncu of pp128 and 128x128 at one tile per block.
set -u
mkdir -p /tmp/new && tar xJf .gpu/probe.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/new
export FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_SHAPES=1024x2048x8192,1024x4224x8192,2048x4224x8192,4096x4096x4096
for r in 1 2; do
timeout 120 bundle/bin/bench-gemm_tc > $OUT/bench$r.log 2>&1; echo "rc=$?"
grep -E "^\| bf16" $OUT/bench$r.log | awk -F'|' '{print $3,$4,$5,$7}'
done
FERROTILE_BENCH_SHAPES=1024x2048x8192,1024x4224x8192 timeout 200 ncu --clock-control none -k regex:"gemm_wgmma_bf16_bf16_nn_(pp128|128x128)_s6" -c 12 --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.max.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,launch__grid_size --csv --page raw bundle/bin/bench-gemm_tc > $OUT/ncu.csv 2> $OUT/ncu.err; echo "ncu rc=$?"
python3 - <<'PY'
import csv,os
rows=list(csv.reader(open(os.environ['OUT']+'/ncu.csv')))
start=[i for i,r in enumerate(rows) if r and r[0]=='ID'][0]
hdr=rows[start]; col={h:i for i,h in enumerate(hdr)}
for r in rows[start+2:]:
    print(r[col['Kernel Name']][-14:], *(h.split('.')[0][-22:]+'='+r[col[h]] for h in ['launch__grid_size','gpu__time_duration.sum','sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active','sm__pipe_tensor_op_hmma_cycles_active.max.pct_of_peak_sustained_active','sm__cycles_elapsed.avg.per_second']))
PY
