#!/usr/bin/env bash
# H200: is the ping-pong k-loop bound by shared memory? ncu (SpeedOfLight, MemoryWorkloadAnalysis, ComputeWorkloadAnalysis)
# of the first plain launch of the 128x256 and ping-pong 128x128 kernels at 4096^3 (the bench's tile probe, every tile whole).
set -u
mkdir -p /tmp/new && tar xJf .gpu/prof.tar.xz -C /tmp/new || echo UNTAR FAILED
cd /tmp/new
mkdir -p $OUT/logs
for kn in 128x256_s4 pp128_s6 128x128_s6; do
FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_SHAPES=4096x4096x4096 timeout 100 ncu --clock-control none -k regex:"gemm_wgmma_bf16_bf16_nn_${kn}" -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum -o $OUT/logs/$kn -f bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$kn.log 2>&1; echo "ncu $kn rc=$?"
ncu -i $OUT/logs/$kn.ncu-rep --page details --csv > $OUT/logs/d-$kn.csv 2>&1
done
python3 - <<'PY'
import csv,os
L=os.environ['OUT']+'/logs/'
for kn in ['128x256_s4','pp128_s6','128x128_s6']:
    rows=list(csv.reader(open(L+f'd-{kn}.csv')))
    if not rows: print(kn,'empty'); continue
    h=rows[0]; ix={c:i for i,c in enumerate(h)}
    print('==',kn)
    for r in rows[1:]:
        if len(r)<len(h)-5: continue
        n=r[ix['Metric Name']]
        if any(w in n for w in ('Duration','Elapsed Cycles','SM Frequency','Shared','shared','Tensor','tensor','gmma','bank','L1/TEX','L2 Cache Throughput','DRAM Throughput','Memory Throughput','Compute (SM)','Issue Slots','Executed Ipc','inst_executed')):
            print('  %-70s %s %s'%(r[ix['Section Name']][:28]+' | '+n, r[ix['Metric Value']], r[ix['Metric Unit']]))
PY
cd $OUT && tar czf logs.tgz logs/*.csv logs/*.log && rm -rf logs
