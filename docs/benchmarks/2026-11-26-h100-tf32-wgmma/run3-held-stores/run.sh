#!/usr/bin/env bash
# wgmma held stores without a jump table (new) against ee177ff (old, bench-gemm_tc only): GPU wgmma tests, bench-gemm_tc bf16 shapes alternating new old new old (records of new1), ncu stall check at 64x1024x1024x64.
set -u
mkdir -p /tmp/ab/new /tmp/ab/old
tar xJf .gpu/new.tar.xz -C /tmp/ab/new && tar xJf .gpu/old.tar.xz -C /tmp/ab/old || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
echo "(tests in a later call: the carry limit)"
export FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×8192,bf16→bf16 8192×8192×1024,bf16→bf16 4096×14336×4096,×128×128×128,64×512×512×512,64×1024×1024×64,256×256×1024×64"
for r in 1 2; do
  for v in new old; do
    if [ $r$v = 1new ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/ab/$v && timeout 100 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-$v$r.log 2>&1 ); echo "=== $v$r rc=$?"
    grep -E "^\| bf16" $OUT/gemm_tc-$v$r.log | grep -E "auto|cuBLAS|fused|plain" | awk -F'|' '{print $3,$4,$5,$7}' | paste -d';' - - - - | head -12
  done
done
unset FERROTILE_RESULTS
cd /tmp/ab/new && FERROTILE_BENCH_ONLY="bf16→bf16 64×1024×1024×64" timeout 100 ncu --clock-control none -k regex:gemm_wgmma -c 1 --section WarpStateStats --section SpeedOfLight bundle/bin/bench-gemm_tc > $OUT/ncu_k64.log 2>&1; echo "ncu rc=$?"; grep -E "Duration|Issued Instruction|long|Long" $OUT/ncu_k64.log | head -8
cd $OUT && tar czf rest.tgz gemm_tc-new2.log gemm_tc-old2.log ncu_k64.log && rm -f gemm_tc-new2.log gemm_tc-old2.log ncu_k64.log; ls $OUT
