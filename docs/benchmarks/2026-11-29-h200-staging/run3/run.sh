#!/usr/bin/env bash
# H200: what bounds the staging copy — ncu sections of one launch of each build's staging kernel at 4096²×4091 (A
# staged, rows of 512 chunks) and 1021×1019×1031 (both staged, small); a PyTorch device copy of the same bytes.
set -u
mkdir -p $OUT/logs /tmp/new /tmp/old
tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED; tar xJf .gpu/old.tar.xz -C /tmp/old || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
for b in old new; do
  cd /tmp/$b
  for s in 4096x4096x4091 1021x1019x1031; do
    FERROTILE_BENCH_PROFILE=$s timeout 120 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --kernel-name regex:"gemm_stage" --launch-skip 1 --launch-count 1 bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$b-$s.txt 2> $OUT/logs/ncu-$b-$s.err
    echo "== $b $s"; grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Issue Slots Busy|Warp Cycles Per Issued|Waves Per SM|Registers Per|Block Limit Reg" $OUT/logs/ncu-$b-$s.txt | head -20
  done
done
python3 - <<'PY' 2>&1 | tee $OUT/logs/torch-copy.txt
import torch
for n in [4096 * 4091, 2 * 1021 * 1031]:
    a = torch.empty(n, dtype=torch.bfloat16, device="cuda"); b = torch.empty_like(a)
    for _ in range(10): b.copy_(a)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(50):
        s.record(); b.copy_(a); e.record(); e.synchronize(); ts.append(s.elapsed_time(e) * 1e3)
    ts.sort(); print(f"torch copy of {n * 2 / 1e6:.1f} MB: median {ts[25]:.1f} us")
PY
cd $OUT && tar czf logs.tgz logs && rm -rf logs
