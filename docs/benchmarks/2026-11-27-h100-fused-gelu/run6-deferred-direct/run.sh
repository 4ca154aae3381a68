#!/usr/bin/env bash
# The deferred tile with the spare warps storing straight to C (no write-back, no TMA store): GPU wgmma tests,
# memcheck and racecheck on its fused cases, three rounds of the epilogue rows (Auto = deferred for the bf16 GELU; the
# 128x256 tile forced = the consumers' own epilogue; plain calls of both; records of round 1), ncu of the
# 8192x8192x1024 calls of all tiles (time, SM clock, tensor pipe, instructions).
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 240 bundle/bin/kernels --include-ignored --test-threads=8 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -10
for tool in memcheck racecheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_deferred_128x256::bias_ > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$?"; grep -E "test result|ERROR SUMMARY|RACECHECK SUMMARY" $OUT/sanitizer-$tool.log | tail -3
done
for r in 1 2 3; do
  echo "=== round $r"
  if [ $r = 1 ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
  FERROTILE_BENCH_ONLY="epilogue" timeout 200 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-$r.log 2>&1; echo "rc=$?"
  grep -E "^\| (bf16|f16)" $OUT/gemm_tc-$r.log | grep -E "fused|plain|separate" | grep -v "pp_128" | awk -F'|' '{print $2,$3,$4,$5,$7,$8}'
done
unset FERROTILE_RESULTS
FERROTILE_BENCH_ONLY="bf16→bf16 8192×8192×1024 epilogue" timeout 150 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_ -c 200 --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_executed_pipe_xu.sum bundle/bin/bench-gemm_tc > $OUT/ncu.log 2>&1; echo "ncu rc=$?"
grep -E "^  gemm_wgmma|gpu__time_duration|sm__cycles_elapsed|hmma|smsp__inst_executed.sum|pipe_xu" $OUT/ncu.log | paste - - - - - - | awk '{printf "%s", $1; for(i=2;i<=NF;i++) if ($i ~ /^[0-9.,]+$/) printf " %s", $i; print ""}' | awk 'NR % 16 == 8' 
cd $OUT && gzip -f ncu.log && tar czf rest.tgz t-*.log sanitizer-*.log && rm -f t-*.log sanitizer-*.log; ls $OUT
