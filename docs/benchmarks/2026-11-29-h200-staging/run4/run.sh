#!/usr/bin/env bash
# H200: the staging copy by warps (a warp per 128-chunk segment of a copied row, four chunks per lane, aligned reads realigned) against the committed one:
# ncu's duration of each staging launch at three odd shapes, the odd-shape bench rows of both builds in turn (two
# rounds), the GPU tests of staged products, memcheck.
set -u
mkdir -p $OUT/logs /tmp/new /tmp/old
tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED; tar xJf .gpu/old.tar.xz -C /tmp/old || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
for b in old new; do
  cd /tmp/$b
  for s in 4096x4099x4096 4093x4099x4091 1021x1019x1031 4096x4096x4091; do
    FERROTILE_BENCH_PROFILE=$s timeout 60 ncu --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed --kernel-name regex:"gemm_stage" --launch-count 4 --csv bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$b-$s.csv 2> $OUT/logs/ncu-$b-$s.err
    python3 - "$OUT/logs/ncu-$b-$s.csv" "$b $s" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print(sys.argv[2], "no rows"); sys.exit()
head = rows[0]; k = head.index("Kernel Name"); v = head.index("Metric Value"); u = head.index("Metric Unit"); m = head.index("Metric Name")
out = []
for r in rows[1:]:
    x = float(r[v].replace(",", ""))
    if r[m].startswith("gpu__time"): x *= (1e-3 if r[u] == "nsecond" else 1.0 if r[u] == "usecond" else 1e3); out.append(f"{r[k][:18]} {x:.2f} us")
    else: out.append(f"dram {x:.1f} %")
print(sys.argv[2], " | ".join(out))
PY
  done
done
ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091,bf16→bf16 4096×4099×4096,bf16→bf16 4096×4096×4091,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031"
for r in old new old new; do
  cd /tmp/$r
  FERROTILE_RESULTS=$OUT/logs/results-$r.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 100 bundle/bin/bench-gemm_tc > $OUT/logs/odd-$r-$SECONDS.log 2>&1; echo "bench $r rc=$? t=$SECONDS"
  grep -hE "vs aligned|host time of one call, median of 100 issued without waiting: [0-9]" $(ls -t $OUT/logs/odd-$r-*.log | head -1) | awk -F'|' '{print $3,$4,$5,$7}'
done
cd /tmp/new
for f in cuda::mma:: cuda::wgmma::bf16_bf16::nn cuda::wgmma::tf32::nn cuda::wgmma::f16_f16::nn cuda::sgemm::auto_any cuda::sgemm::edge_tight batch; do
  FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-$f.log 2>&1; echo "tests $f rc=$?"
  grep "test result" $OUT/logs/t-$f.log; grep -E "FAILED|panicked" $OUT/logs/t-$f.log | head -3
done
bundle/bin/kernels --list 2>/dev/null | grep -E "^cuda::mma::bf16_bf16::nn::|^cuda::wgmma::tf32::nn::wgmma_128x128::|^cuda::mma::bf16_bf16::batch" | sed 's/: test$//' | head -50 > /tmp/mc.txt
FERROTILE_TESTS_FROM=/tmp/mc.txt timeout 100 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/logs/memcheck.log | tail -3
cd $OUT && tar czf logs.tgz logs && rm -rf logs
