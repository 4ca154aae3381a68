#!/usr/bin/env python3
"""PyTorch and CuPy baselines for the box blur's shape classes (issue 15).

For the sizes and radii of the shape-class table of `benches/image.rs`
(8192² and 4093 × 4099; 1, 3 and 4 channels; radius 1, 3, 8, 16, 32) times
on the GPU with CUDA events (median; runs adapted to about 0.3 s, 3 to 50,
after 2 warm-ups), each against a copy of the same bytes in the same run:

* PyTorch `avg_pool2d(x, 2r + 1, stride 1, padding r,
  count_include_pad=False)` on an f32 `(1, c, h, w)` tensor — the same
  windows and in-image counts as ours, in f32 (ceiling: copy of the f32
  bytes) — and the whole u8 → u8 blur `(avg_pool2d(x.float()) +
  0.5).floor().to(uint8)` (ceiling: copy of the u8 bytes, like ours);
  checked against a summed-area table in f64 on the GPU.
* CuPy `cupyx.scipy.ndimage.uniform_filter(x, size=(2r + 1, 2r + 1, 1))`
  on the u8 `(h, w, c)` image (separable; its edges reflect instead of
  averaging the in-image pixels only, so its values differ at the borders
  but its cost is that of the same filter); ceiling: copy of the u8 bytes.

Either library is skipped with a note when it does not import or has no
GPU. Prints one markdown table; `% of copy` = copy time / op time. With
`FERROTILE_RESULTS` set, also appends one JSON record per row to that file
(the fields of benches/common/results.rs; family `image_baseline`), for
`cargo xtask report`.

    python3 benches/gpu/torch_image.py
"""

import datetime
import json
import os
import statistics
import subprocess
import sys
import time

# Set by torch_rows / cupy_rows: the device's name, for the records.
GPU = {"name": "unknown"}

SIZES = ((8192, 8192), (4093, 4099))
CHANNELS = (1, 3, 4)
RADII = (1, 3, 8, 16, 32)
WARMUP = 2


def median_ms(fn, sync, event):
    for _ in range(WARMUP):
        fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    once = max(time.perf_counter() - t0, 1e-6)
    runs = int(min(50, max(3, 0.3 / once)))
    times = []
    for _ in range(runs):
        start, end = event(), event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def driver():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, check=True).stdout
        return out.splitlines()[0].strip()
    except Exception:  # noqa: BLE001 - no nvidia-smi: the record says so
        return "unknown"


def record(op, size, ms, gbs, copy_ms, copy_gbs):
    path = os.environ.get("FERROTILE_RESULTS")
    if not path:
        return
    is_copy = op.startswith("copy")
    failed = " FAIL" in op
    op = op.split(" FAIL")[0]
    rec = {
        "family": "image_baseline", "kernel": op, "rung": "ceiling" if is_copy else None, "shape": size,
        "dtype": "f32" if " f32" in op else "u8", "time_ms": ms, "throughput": gbs, "unit": "GB/s",
        "ceiling": None if is_copy else "copy of the same bytes (same library, same run)",
        "ceiling_throughput": None if is_copy else copy_gbs, "ratio": None if is_copy else copy_ms / ms,
        "check": "ceiling" if is_copy else ("FAIL" if failed else "ok"), "gpu": GPU["name"], "driver": driver(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
    }
    with open(path, "a") as f:
        f.write(json.dumps(rec, ensure_ascii=False) + "\n")


def row(op, size, ms, nbytes, copy_ms):
    gbs = 2 * nbytes / (ms * 1e-3) / 1e9
    print(f"| {op} | {size} | {ms:.4f} | {gbs:.1f} | {100 * copy_ms / ms:.1f} |", flush=True)
    record(op, size, ms, gbs, copy_ms, 2 * nbytes / (copy_ms * 1e-3) / 1e9)


def torch_rows():
    try:
        import torch
        import torch.nn.functional as F
    except Exception as e:  # noqa: BLE001 - any import failure means "skip"
        print(f"\nPyTorch: not available ({e}); skipped")
        return
    if not torch.cuda.is_available():
        print("\nPyTorch: no CUDA device; skipped")
        return
    GPU["name"] = torch.cuda.get_device_name(0)
    print(f"\n# PyTorch {torch.__version__} box filter — {GPU['name']}\n")
    print("| op | size | time ms | GB/s (read + written) | % of copy |")
    print("| --- | --- | ---: | ---: | ---: |")
    sync, event = torch.cuda.synchronize, lambda: torch.cuda.Event(enable_timing=True)
    gen = torch.Generator(device="cuda").manual_seed(15)
    for w, h in SIZES:
        for c in CHANNELS:
            size = f"{w}x{h}x{c}"
            x8 = torch.randint(0, 256, (1, c, h, w), device="cuda", dtype=torch.uint8, generator=gen)
            xf = x8.float()
            y8, yf = torch.empty_like(x8), torch.empty_like(xf)
            copy8 = median_ms(lambda: y8.copy_(x8), sync, event)
            copyf = median_ms(lambda: yf.copy_(xf), sync, event)
            row("copy u8", size, copy8, x8.numel(), copy8)
            row("copy f32", size, copyf, 4 * xf.numel(), copyf)
            # Summed-area table (f64, exact for these sums) for the check.
            sat = torch.zeros((1, c, h + 1, w + 1), device="cuda", dtype=torch.float64)
            sat[:, :, 1:, 1:] = xf.double().cumsum(2).cumsum(3)
            for r in RADII:
                k = 2 * r + 1
                pool = lambda: F.avg_pool2d(xf, k, stride=1, padding=r, count_include_pad=False)  # noqa: E731
                blur8 = lambda: (F.avg_pool2d(x8.float(), k, stride=1, padding=r, count_include_pad=False) + 0.5).floor().to(torch.uint8)  # noqa: E731
                got = pool()
                ys, xs = torch.arange(h, device="cuda"), torch.arange(w, device="cuda")
                y0, y1 = (ys - r).clamp(min=0), (ys + r + 1).clamp(max=h)
                x0, x1 = (xs - r).clamp(min=0), (xs + r + 1).clamp(max=w)
                s = (sat[:, :, y1][:, :, :, x1] - sat[:, :, y0][:, :, :, x1] - sat[:, :, y1][:, :, :, x0] + sat[:, :, y0][:, :, :, x0])
                cnt = ((y1 - y0)[:, None] * (x1 - x0)[None, :]).double()
                err = (got.double() - s / cnt).abs().max().item()
                ok = "" if err < 1e-3 else f" FAIL (max error {err:.3g})"
                del s, cnt, got
                row(f"avg_pool2d f32 r{r}{ok}", size, median_ms(pool, sync, event), 4 * xf.numel(), copyf)
                row(f"avg_pool2d u8→u8 r{r}", size, median_ms(blur8, sync, event), x8.numel(), copy8)
            del x8, xf, y8, yf, sat
            torch.cuda.empty_cache()


def cupy_rows():
    try:
        import cupy
        from cupyx.scipy import ndimage
    except Exception as e:  # noqa: BLE001
        print(f"\nCuPy: not available ({e}); skipped")
        return
    try:
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    except Exception as e:  # noqa: BLE001
        print(f"\nCuPy: no CUDA device ({e}); skipped")
        return
    GPU["name"] = name
    print(f"\n# CuPy {cupy.__version__} uniform_filter — {name}\n")
    print("| op | size | time ms | GB/s (read + written) | % of copy |")
    print("| --- | --- | ---: | ---: | ---: |")
    sync = cupy.cuda.Device().synchronize
    event = cupy.cuda.Event

    class Ev:
        def __init__(self):
            self.e = event()

        def record(self):
            self.e.record()

        def synchronize(self):
            self.e.synchronize()

        def elapsed_time(self, other):
            return cupy.cuda.get_elapsed_time(self.e, other.e)

    rng = cupy.random.default_rng(15)
    for w, h in SIZES:
        for c in CHANNELS:
            size = f"{w}x{h}x{c}"
            x = rng.integers(0, 256, size=(h, w, c), dtype=cupy.uint8)
            y = cupy.empty_like(x)
            copy = median_ms(lambda: y.__setitem__(Ellipsis, x), sync, Ev)
            row("copy u8", size, copy, x.size, copy)
            for r in RADII:
                k = 2 * r + 1
                f = lambda: ndimage.uniform_filter(x, size=(k, k, 1), output=y)  # noqa: E731
                row(f"uniform_filter u8 r{r}", size, median_ms(f, sync, Ev), x.size, copy)
            del x, y
            cupy.get_default_memory_pool().free_all_blocks()


def main():
    torch_rows()
    cupy_rows()
    return 0


if __name__ == "__main__":
    sys.exit(main())
