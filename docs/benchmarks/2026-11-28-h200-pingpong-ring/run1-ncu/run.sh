#!/usr/bin/env bash
# H200: why the ping-pong tile's k-loops are slow. SASS of the pp128 and cooperative 128x128 kernels' k-loops
# (HGMMA and the warpgroup fences around them); ncu of both at 4096^3 plain (tensor pipe, stalls, instructions).
set -u
mkdir -p /tmp/new && tar xJf .gpu/epi.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
for f in gemm_wgmma_bf16_bf16_nn_pp128_s6 gemm_wgmma_bf16_bf16_nn_128x128_s6 gemm_wgmma_bf16_bf16_nn_128x256_s4; do
  cuobjdump -sass -fun $f .gpu/sm90a.cubin > $OUT/logs/$f.sass 2>&1
  echo "== $f: $(wc -l < $OUT/logs/$f.sass) lines; HGMMA $(grep -c HGMMA $OUT/logs/$f.sass); DEPBAR $(grep -c 'WARPGROUP.DEPBAR' $OUT/logs/$f.sass); ARRIVE $(grep -c 'WARPGROUP.ARRIVE' $OUT/logs/$f.sass); WARPSYNC $(grep -c WARPSYNC $OUT/logs/$f.sass)"
  grep -n -E "HGMMA|WARPGROUP|SYNCS|BAR" $OUT/logs/$f.sass | head -60 | cut -c1-150
done
cd /tmp/new
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096" timeout 300 ncu --clock-control none -k regex:"gemm_wgmma_bf16_bf16_nn_(pp128|128x128)_s6" -c 12 --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,lts__t_bytes.sum.per_second --csv --page raw bundle/bin/bench-gemm_tc > $OUT/logs/ncu.csv 2> $OUT/logs/ncu.err; echo "ncu rc=$?"
tail -3 $OUT/logs/ncu.err
python3 - <<'PY'
import csv,os,collections
rows=list(csv.reader(open(os.environ['OUT']+'/logs/ncu.csv')))
start=[i for i,r in enumerate(rows) if r and r[0]=='ID'][0]
hdr=rows[start]; data=rows[start+2:]
col={h:i for i,h in enumerate(hdr)}
def g(r,k):
    try: return float(r[col[k]].replace(',',''))
    except: return float('nan')
stall=[h for h in hdr if h.startswith('smsp__average_warp_latency_issue_stalled') or h.startswith('smsp__average_warps_issue_stalled')]
groups=collections.OrderedDict()
for r in data: groups.setdefault(r[col['Kernel Name']],[]).append(r)
keys=['gpu__time_duration.sum','smsp__inst_executed.sum','sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active','sm__cycles_elapsed.avg.per_second','lts__t_bytes.sum.per_second','sm__throughput.avg.pct_of_peak_sustained_elapsed','l1tex__data_pipe_lsu_wavefronts_mem_shared.sum','smsp__issue_active.avg.pct_of_peak_sustained_active','lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum','dram__bytes_read.sum']
for name,rs in groups.items():
    print('==',name,'launches',len(rs))
    for k in keys:
        if k in col: print('   ',k, sorted(g(r,k) for r in rs)[len(rs)//2])
    s=[(h, sum(g(r,h) for r in rs)/len(rs)) for h in stall]
    s=[x for x in s if x[1]==x[1] and x[1]>0.05]; s.sort(key=lambda x:-x[1])
    for h,v in s[:12]: print('   stall',h.replace('smsp__average_warp_latency_issue_stalled_','').replace('smsp__average_warps_issue_stalled_',''),round(v,3))
    pct=[h for h in hdr if 'pct_of_peak' in h]
    vals=sorted(((sum(g(r,h) for r in rs)/len(rs)),h) for h in pct)
    for v,h in vals[-14:]: print('   pct',h,round(v,1))
PY
cd $OUT && tar czf logs.tgz logs && rm -rf logs
