#!/usr/bin/env bash
# Split-K inside the wgmma kernel, third call: bench decode round 2 (back to back too), the main bf16 rows (the
# split-K code on unsplit tiles: no regression?).
set -u
mkdir -p /tmp/ab/new
[ -x /tmp/ab/new/bundle/bin/kernels ] || tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
cd /tmp/ab/new
FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="decode" timeout 250 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-2.log 2>&1; echo "=== decode round 2 rc=$?"
grep -E "decode" $OUT/gemm_tc-2.log | grep -v JSON | grep -E "copy|auto|cuBLAS" | awk -F'|' '{print $3,$4,$5,$7}' | head -40
FERROTILE_RESULTS=$OUT/results-main.jsonl FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×8192,bf16→bf16 8192×8192×1024" timeout 230 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-main.log 2>&1; echo "=== main rc=$?"
grep -E "^\| bf16" $OUT/gemm_tc-main.log | grep -v "in turn" | awk -F'|' '{print $3,$4,$5,$7}' | head -40
ls $OUT
