#!/usr/bin/env bash
# Run 4's build: is the fused GELU's cost time the SMs spend, or clock lost to power? ncu of the 8192x8192x1024 calls
# (plain and fused, the 128x256 tile and the deferred one) with the SM clock each kernel ran at; nvidia-smi's power
# and SM clock sampled every 50 ms through two rounds of the bench's 8192x8192x1024 and 8192^3 epilogue rows.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 50 > $OUT/smi.csv 2>&1 &
SMI=$!
for r in 1 2; do
  echo "=== round $r"; date +%T.%N
  FERROTILE_BENCH_ONLY="bf16→bf16 8192×8192×1024 epilogue,bf16→bf16 8192×8192×8192 epilogue" timeout 150 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-$r.log 2>&1; echo "rc=$?"; date +%T.%N
  grep -E "^\| (bf16|f16)" $OUT/gemm_tc-$r.log | grep -E "fused|plain|separate" | grep -v "pp_128" | awk -F'|' '{print $2,$3,$4,$5,$7,$8}'
done
kill $SMI
python3 - <<'PY'
import os,collections
rows=[l.split(', ') for l in open(os.environ['OUT']+'/smi.csv') if l.count(',')>=4]
busy=[r for r in rows if float(r[1].split()[0])>300]
print('samples',len(rows),'over 300 W',len(busy))
if busy:
    p=[float(r[1].split()[0]) for r in busy]; c=[float(r[2].split()[0]) for r in busy]
    print('power W min/med/max', min(p), sorted(p)[len(p)//2], max(p)); print('SM MHz min/med/max', min(c), sorted(c)[len(c)//2], max(c))
    print(collections.Counter(r[4].strip() for r in busy).most_common(5))
PY
FERROTILE_BENCH_ONLY="bf16→bf16 8192×8192×1024 epilogue" timeout 150 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_ -c 200 --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_executed_pipe_xu.sum bundle/bin/bench-gemm_tc > $OUT/ncu.log 2>&1; echo "ncu rc=$?"
python3 - <<'PY'
import re,os
txt=open(os.environ['OUT']+'/ncu.log').read()
blocks=re.split(r'\n  (gemm_wgmma\S+)', txt)
rows=[]
for name,b in zip(blocks[1::2], blocks[2::2]):
    d={'k':name.split('(')[0][22:]}
    for k in ['gpu__time_duration.sum','sm__cycles_elapsed.avg.per_second','sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active','smsp__inst_executed.sum','sm__inst_executed_pipe_xu.sum']:
        m=re.search(re.escape(k)+r'\s+(\S+)\s+([\d.,]+)',b)
        if m: d[k.split('.')[0].split('__')[-1][:14]]=m.group(1)+' '+m.group(2)
    rows.append(d)
print(len(rows))
prev=None
for i,d in enumerate(rows):
    key=(d['k'], d.get('inst_executed_p'))
    if key!=prev: print(i, d)
    prev=key
print(len(rows)-1, rows[-1] if rows else None)
PY
cd $OUT && gzip -f ncu.log smi.csv; ls $OUT
