#!/usr/bin/env python3
"""PyTorch baseline for the transpose ladder.

Times `x.t().contiguous()` (PyTorch's transpose copy) and a plain
`y.copy_(x)` (the copy ceiling) for the shape classes of
benches/transpose.rs (aligned squares, odd sides, a few rows or columns,
one row) in f32 on the GPU with
torch.cuda.Event, median of 50 runs after 5 warm-ups, and prints one
markdown table. GB/s counts the bytes read plus the bytes written
(8 · n · n for f32).

    python3 benches/gpu/torch_transpose.py
"""

import statistics
import sys

import torch

WARMUP = 5
RUNS = 50


def median_ms(fn):
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(RUNS):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    if not torch.cuda.is_available():
        print("torch_transpose: no CUDA device; nothing to measure")
        return 0
    name = torch.cuda.get_device_name(0)
    print(f"# PyTorch {torch.__version__} transpose baseline — {name}\n")
    print("| op | size | time ms | GB/s | % of copy |")
    print("| --- | --- | ---: | ---: | ---: |")
    shapes = [(4096, 4096), (8192, 8192), (8191, 8193), (64, 1 << 20), (1 << 20, 64), (7, 1 << 22), (1 << 22, 7), (1, 1 << 24)]
    for nx, ny in shapes:
        x = torch.rand(ny, nx, device="cuda", dtype=torch.float32) * 2 - 1
        y = torch.empty_like(x)
        nbytes = 2 * x.numel() * x.element_size()
        copy_ms = median_ms(lambda: y.copy_(x))
        t_ms = median_ms(lambda: x.t().contiguous())
        ref = x.t().contiguous()
        ok = torch.equal(ref.t(), x)
        for op, ms in (("y.copy_(x)", copy_ms), ("x.t().contiguous()" + ("" if ok else " FAIL"), t_ms)):
            gbs = nbytes / (ms * 1e-3) / 1e9
            print(f"| {op} | {nx}x{ny} | {ms:.4f} | {gbs:.1f} | {100 * copy_ms / ms:.1f} |")
        del x, y, ref
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
