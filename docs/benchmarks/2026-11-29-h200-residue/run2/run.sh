#!/usr/bin/env bash
# Which tensor maps fault a TMA load (run 1: the residue kernel's first UTMALDG raised an illegal instruction).
set -u
D=docs/benchmarks/2026-11-29-h200-residue/run2
nvcc -O2 -arch=sm_90a -o /tmp/tmabase $D/tmabase.cu -lcuda || exit 1
# Row stride 2096 bytes (8 rows of 131 bf16), 25 rows, as residue 1 of run 1's 200 × 131 A; then bases and strides apart.
for c in "0 2096 131 25 8 256 0 0" "16 2096 132 25 8 256 1 0" "16 2096 132 25 8 256 1 8" "16 2096 132 25 8 0 1 0" \
         "128 2096 132 25 8 256 1 0" "256 2096 132 25 8 256 1 0" "0 2096 131 25 64 256 0 0" "16 2096 131 25 64 256 0 0" \
         "0 2112 131 25 8 256 0 0" "16 2112 131 25 8 256 0 0" "32 2096 132 25 8 256 0 0" "64 2096 132 25 8 256 0 0" \
         "0 262 131 200 8 256 0 0" "0 2048 1024 100 8 256 0 0" "16 2048 1024 100 8 256 0 0" "16 2048 1024 100 64 256 0 0"; do
  timeout 20 /tmp/tmabase $c
done
