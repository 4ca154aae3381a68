#!/usr/bin/env bash
# compute-sanitizer over the bundle's CUDA tests at the emulator-sized shapes
# (the big GPU-only sizes and the stress cases are skipped: the sanitizer
# slows kernels 10-100x). Run from the repo root on a GPU machine after
# `cargo xtask gpu-bundle`:
#
#   bash benches/gpu/sanitize.sh [memcheck|racecheck|synccheck|initcheck ...]
#
# memcheck and initcheck run over every `cuda::` test; racecheck and
# synccheck over the families whose kernels use shared memory or barriers
# (one invocation per family, so a slow family cannot hide the others).
# SANITIZE_TIMEOUT (seconds, default 600) bounds each invocation; a family
# cut off by it prints `rc=124` and its log shows how far it got.
# SANITIZE_FAMILIES (space-separated, default: all of `shared` below)
# narrows racecheck/synccheck, e.g. SANITIZE_FAMILIES="cuda::sgemm".
#
# API errors are not reported (--report-api-errors no): the tests provoke
# some on purpose and check the typed error that results: a 1 TiB allocation
# (Error::OutOfMemory) and Buffer::from_raw_device_ptr on a pointer the
# driver does not know (cuPointerGetAttribute fails, Error::BadArgument).
# Memory errors, races, barrier misuse and uninitialised reads are reported.
set -uo pipefail
out=${OUT:-/tmp/ferrotile-sanitize}
limit=${SANITIZE_TIMEOUT:-600}
mkdir -p "$out"
big=(--skip 1000 --skip 1024 --skip 4096 --skip 8192 --skip 1920 --skip 67108864 --skip 4093
     --skip 8191 --skip 67108863 --skip 2048 --skip 1021 --skip 777 --skip 1031 --skip 1080
     --skip stress::)
t=bundle/bin/kernels
export FERROTILE_REQUIRE_GPU=1
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck initcheck)
# The families whose kernels share memory between threads.
shared=(cuda::sgemm cuda::mma cuda::wgmma cuda::transpose cuda::image::blur cuda::image::volume)
[ -n "${SANITIZE_FAMILIES:-}" ] && read -r -a shared <<< "$SANITIZE_FAMILIES"
summary() { { grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$1" | tail -2; echo "rc=$2"; } | sed "s|^|$3: |"; }
run() { # tool filter log
  local tool=$1 filter=$2 log=$3
  timeout "$limit" compute-sanitizer --tool "$tool" --report-api-errors no --print-limit 20 \
    $t "$filter" "${big[@]}" --include-ignored --test-threads=16 > "$log" 2>&1
  summary "$log" $? "$tool $filter"
}
for tool in "${tools[@]}"; do
  case $tool in
    memcheck|initcheck) run "$tool" cuda:: "$out/$tool.log" ;;
    racecheck|synccheck)
      for f in "${shared[@]}"; do run "$tool" "$f" "$out/$tool-${f//:/_}.log"; done ;;
    *) echo "unknown tool: $tool" >&2; exit 2 ;;
  esac
done
