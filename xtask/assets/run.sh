#!/usr/bin/env bash
# ferrotile GPU bundle runner, written by `cargo xtask gpu-bundle` (source:
# xtask/assets/run.sh). Runs on a CUDA machine with no Rust toolchain, from the
# repository root:
#
#   bash bundle/run.sh [quick|full|tests|sanitize [TOOL...]]
#
#   quick (default)  tests, then benches (criterion: --bench --quick --noplot)
#   full             tests, then benches (criterion: --bench --noplot)
#   tests            tests only
#   sanitize         compute-sanitizer (memcheck, racecheck, synccheck, initcheck, or
#                    the TOOLs named) over the kernel tests: benches/gpu/sanitize.sh
#
# bundle/manifest.txt lists the executables in bundle/bin/:
#   `test NAME`                    libtest executables: run with $FERROTILE_TEST_ARGS
#                                  (default: --test-threads=4 --include-ignored, so the
#                                  GPU tests that are #[ignore]d without a GPU run too)
#   `bench bench-NAME criterion`   criterion benches: run with --bench and the mode's options
#   `bench bench-NAME plain`       plain programs (e.g. ladder): run with no arguments
#   `example example-NAME`         the examples (examples/*.rs): run with no arguments after
#                                  the tests, in every mode; each checks its own results
#   `tool NAME`                    the CLI: `NAME tour` runs before the benches (name: tour),
#                                  then `NAME tour --json` into logs/tour.json
# Benches see FERROTILE_BENCH_MODE=quick|full. FERROTILE_BENCHES="ladder sgemm"
# (space-separated target names, with or without the bench- prefix) restricts
# which benches run. The plain benches also append one JSON record per row
# to $FERROTILE_RESULTS (default: logs/results.jsonl; `cargo xtask report`
# turns it into tables and charts). Logs go to ${OUT:-/tmp/ferrotile-out}/logs/<name>.log,
# criterion's data to ${OUT:-/tmp/ferrotile-out}/criterion. The summary table
# comes last; the exit status is non-zero if anything failed.
set -uo pipefail

mode=${1:-quick}
case "$mode" in
  quick) criterion_args=(--bench --quick --noplot) ;;
  full) criterion_args=(--bench --noplot) ;;
  tests) criterion_args=() ;;
  sanitize) cd "$(dirname "${BASH_SOURCE[0]}")/.." && exec bash benches/gpu/sanitize.sh "${@:2}" ;;
  -h|--help|help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: bash bundle/run.sh [quick|full|tests|sanitize [TOOL...]]" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.."
out=${OUT:-/tmp/ferrotile-out}
logs=$out/logs
mkdir -p "$logs"

export FERROTILE_REQUIRE_GPU=1
# tests/cli.rs runs the CLI binary: here it is not where cargo built it.
export FERROTILE_CLI=$here/bin/ferrotile
export FERROTILE_BENCH_MODE=$mode
export CRITERION_HOME=$out/criterion
export FERROTILE_RESULTS=${FERROTILE_RESULTS:-$logs/results.jsonl}
read -r -a test_args <<< "${FERROTILE_TEST_ARGS:---test-threads=4 --include-ignored}"

# cuBLAS (the GEMM ceiling) from the PyTorch install's nvidia-* wheels.
cublas_dirs=$(python3 - 2>/dev/null <<'PY'
import glob, os, site, sys
roots = list(sys.path)
try:
    roots += site.getsitepackages() + [site.getusersitepackages()]
except Exception:
    pass
dirs = []
try:
    import nvidia.cublas as m
    dirs += [os.path.join(p, "lib") for p in m.__path__]
except Exception:
    pass
for r in roots:
    for pat in ("nvidia/cublas/lib", "nvidia/cu*/lib", "torch/lib"):
        dirs += sorted(glob.glob(os.path.join(r, pat)))
seen = []
for d in dirs:
    d = os.path.realpath(d)
    if d not in seen and glob.glob(os.path.join(d, "libcublas.so*")):
        seen.append(d)
print(":".join(seen))
PY
) || cublas_dirs=
if [ -n "$cublas_dirs" ]; then
  export LD_LIBRARY_PATH="$cublas_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "cuBLAS: $cublas_dirs"
else
  echo "cuBLAS: not found in python3's site-packages (benchmarks needing it will say so)"
fi

# NCCL (the multi-GPU collectives) from the nvidia-nccl-cu12 wheel: cudarc
# opens libnccl.so (not the wheel's libnccl.so.2), so a link of that name goes
# into a directory on LD_LIBRARY_PATH. NVLink multicast stays off.
export NCCL_NVLS_ENABLE=0
nccl_lib=$(python3 - 2>/dev/null <<'PY'
import glob, os, site, sys
roots = list(sys.path)
try:
    roots += site.getsitepackages() + [site.getusersitepackages()]
except Exception:
    pass
for r in roots:
    for f in sorted(glob.glob(os.path.join(r, "nvidia/nccl/lib/libnccl.so*"))):
        print(os.path.realpath(f))
        sys.exit(0)
PY
) || nccl_lib=
if [ -n "$nccl_lib" ]; then
  mkdir -p "$out/nccl-lib"
  ln -sf "$nccl_lib" "$out/nccl-lib/libnccl.so"
  export LD_LIBRARY_PATH="$out/nccl-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "NCCL: $nccl_lib (as $out/nccl-lib/libnccl.so)"
else
  echo "NCCL: not found in python3's site-packages (the multi-GPU tests and bench will say so)"
fi

if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
else
  echo "nvidia-smi: not found"
fi
echo "mode: $mode; logs: $logs"

names=()
results=()
counts=()
failures=0

# run NAME CMD...: runs one executable, tees its log, records the result.
run() {
  local name=$1
  shift
  echo
  echo "==> $name $*"
  "$@" </dev/null 2>&1 | tee "$logs/$name.log"
  local rc=${PIPESTATUS[0]}
  local passed=0 failed=0 ignored=0 seen=0 line
  while IFS= read -r line; do
    if [[ $line =~ test\ result:\ [A-Za-z]+\.\ ([0-9]+)\ passed\;\ ([0-9]+)\ failed\;\ ([0-9]+)\ ignored ]]; then
      passed=$((passed + BASH_REMATCH[1]))
      failed=$((failed + BASH_REMATCH[2]))
      ignored=$((ignored + BASH_REMATCH[3]))
      seen=1
    fi
  done < "$logs/$name.log"
  names+=("$name")
  if [ "$rc" -eq 0 ]; then results+=("pass"); else results+=("fail (exit $rc)"); failures=$((failures + 1)); fi
  if [ "$seen" -eq 1 ]; then counts+=("$passed $failed $ignored"); else counts+=("- - -"); fi
}

wanted() {
  [ -z "${FERROTILE_BENCHES:-}" ] && return 0
  local b
  for b in $FERROTILE_BENCHES; do
    [ "$b" = "$1" ] || [ "bench-$b" = "$1" ] && return 0
  done
  return 1
}

while read -r kind name style; do
  [ "$kind" = test ] && run "$name" "$here/bin/$name" "${test_args[@]}"
done < "$here/manifest.txt"

while read -r kind name style; do
  [ "$kind" = example ] && run "$name" "$here/bin/$name"
done < "$here/manifest.txt"

if [ "$mode" != tests ]; then
  # The tour: every kernel verified and timed on the GPU (one table).
  while read -r kind name style; do
    [ "$kind" = tool ] && wanted tour && run tour "$here/bin/$name" tour
    # The same as one JSON document (% of the ceiling per row), for the record.
    [ "$kind" = tool ] && wanted tour && { "$here/bin/$name" tour --json </dev/null > "$logs/tour.json" 2>/dev/null || echo "tour --json failed (see tour.log)"; }
  done < "$here/manifest.txt"
  while read -r kind name style; do
    [ "$kind" = bench ] || continue
    wanted "$name" || continue
    if [ "$style" = criterion ]; then
      run "$name" "$here/bin/$name" "${criterion_args[@]}"
    else
      run "$name" "$here/bin/$name"
    fi
  done < "$here/manifest.txt"
fi

echo
echo "==> summary ($mode)"
printf '%-36s %-16s %7s %7s %8s\n' executable result passed failed ignored
total_p=0 total_f=0 total_i=0
for i in "${!names[@]}"; do
  read -r p f g <<< "${counts[$i]}"
  printf '%-36s %-16s %7s %7s %8s\n' "${names[$i]}" "${results[$i]}" "$p" "$f" "$g"
  if [ "$p" != - ]; then total_p=$((total_p + p)); total_f=$((total_f + f)); total_i=$((total_i + g)); fi
done
echo "tests: $total_p passed, $total_f failed, $total_i ignored; executables failed: $failures of ${#names[@]}"
[ "$failures" -eq 0 ]
