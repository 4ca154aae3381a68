#!/usr/bin/env python3
"""cuBLAS SGEMM through PyTorch (fp32, TF32 off): the SGEMM ceiling
measured independently of ferrotile. Prints one markdown table.

    python3 benches/gpu/torch_sgemm.py
"""
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def median_ms(fn, iters):
    start = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    end = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    for s, e in zip(start, end):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in zip(start, end))
    return times[len(times) // 2]


def main():
    if not torch.cuda.is_available():
        print("torch_sgemm: no CUDA device")
        return
    print(f"# torch.matmul fp32 (TF32 off) — {torch.cuda.get_device_name(0)}, torch {torch.__version__}\n")
    print("| m×n×k | time ms | TFLOP/s |")
    print("| --- | ---: | ---: |")
    for (m, n, k) in [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 1024, 8192)]:
        a = torch.rand(m, k, device="cuda", dtype=torch.float32) * 2 - 1
        b = torch.rand(k, n, device="cuda", dtype=torch.float32) * 2 - 1
        c = torch.empty(m, n, device="cuda", dtype=torch.float32)
        iters = 50 if m * n * k <= 4096 ** 3 else 15
        ms = median_ms(lambda: torch.matmul(a, b, out=c), iters)
        print(f"| {m}×{n}×{k} | {ms:.3f} | {2 * m * n * k / ms / 1e9:.1f} |")


if __name__ == "__main__":
    main()
