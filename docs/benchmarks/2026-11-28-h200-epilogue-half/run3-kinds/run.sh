#!/usr/bin/env bash
# H200: the epilogue compiled apart per kind (plain / bias + activation / general; new, "kinds") against the
# ½-folded build (old, "epi"): epilogue rows with the bias-alone and ReLU rows, alternating old/new twice;
# GPU tests cuda::wgmma, cuda::mma, pdl of the new build; racecheck + memcheck on its 128x256 bias cases;
# ncu of the 4096^3 plain / bias / bias + GELU calls of both builds.
set -u
mkdir -p /tmp/old /tmp/new $OUT/logs
tar xJf .gpu/epi.tar.xz -C /tmp/old || echo UNTAR OLD FAILED
tar xJf .gpu/kinds.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/new
for f in cuda::wgmma cuda::mma pdl; do
  FERROTILE_REQUIRE_GPU=1 timeout 170 bundle/bin/kernels --include-ignored --test-threads=12 $f > $OUT/logs/t-$f.log 2>&1; echo "$f rc=$?"
  grep "test result" $OUT/logs/t-$f.log; grep -E "FAILED|panicked" $OUT/logs/t-$f.log | head -5
done
FERROTILE_REQUIRE_GPU=1 timeout 80 compute-sanitizer --tool racecheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256::bias > $OUT/logs/racecheck.log 2>&1; echo "racecheck rc=$?"; grep -E "test result|RACECHECK SUMMARY" $OUT/logs/racecheck.log | tail -2
FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256::bias > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/logs/memcheck.log | tail -2
export FERROTILE_BENCH_ONLY=epilogue FERROTILE_BENCH_EPILOGUE_PARTS=1
for r in 1 2; do
  for v in old new; do
    echo "=== $v round $r"
    if [ $r$v = 1new ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/$v && timeout 110 bundle/bin/bench-gemm_tc > $OUT/logs/bench-$v$r.log 2>&1 ); echo "rc=$?"
    grep -E "^\| bf16" $OUT/logs/bench-$v$r.log | grep -E "in turn|\| fused bias \+ GELU \|" | grep -v "plain, median" | awk -F'|' '{print $3,$4,$5,$7}'
  done
done
unset FERROTILE_RESULTS
for v in old new; do
  ( cd /tmp/$v && FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096 epilogue" timeout 150 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_128x256 -c 215 --section WarpStateStats --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__inst_executed_pipe_xu.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second --csv --page raw bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$v.csv 2> $OUT/logs/ncu-$v.err ); echo "ncu $v rc=$?"
  python3 - $OUT/logs/ncu-$v.csv <<'PY'
import csv,sys,collections
rows=list(csv.reader(open(sys.argv[1])))
start=[i for i,r in enumerate(rows) if r and r[0]=='ID'][0]
hdr=rows[start]; data=rows[start+2:]
col={h:i for i,h in enumerate(hdr)}
def g(r,k):
    try: return float(r[col[k]].replace(',',''))
    except: return float('nan')
insts=sorted(set(round(g(r,'smsp__inst_executed.sum')/1e5) for r in data))
base=min(insts)
cls=collections.OrderedDict((k,[]) for k in ['plain','bias','gelu'])
for r in data:
    xu=g(r,'sm__inst_executed_pipe_xu.sum'); inst=g(r,'smsp__inst_executed.sum')/1e5
    if xu>3e5: cls['gelu'].append(r)
    elif inst-base<2: cls['plain'].append(r)
    else: cls['bias'].append(r)
for k,rs in cls.items():
    if not rs: continue
    t=sorted(g(r,'gpu__time_duration.sum')/1000 for r in rs)
    nm=lambda h: sum(g(r,h) for r in rs)/len(rs)
    print(k,len(rs),'time us med %.1f'%t[len(t)//2],'inst %.2fM'%(nm('smsp__inst_executed.sum')/1e6),'tensor %.1f'%nm('sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active'),'no_instr %.2f'%nm('smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio'),'short_sb %.2f'%nm('smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio'),'barrier %.2f'%nm('smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio'))
PY
  gzip -f $OUT/logs/ncu-$v.csv
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs; ls $OUT
