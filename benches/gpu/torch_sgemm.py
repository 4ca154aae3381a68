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
    print("| m×n×k | op | time ms | TFLOP/s |")
    print("| --- | --- | ---: | ---: |")
    # The ladder's shapes, then the shape classes of benches/sgemm.rs
    # (op: N = as stored, T = stored transposed, read through .t()).
    shapes = [(4096, 4096, 4096, "NN"), (8192, 8192, 8192, "NN"), (4096, 1024, 8192, "NN"),
              (1000, 1000, 1000, "NN"), (1023, 1025, 1021, "NN"), (4097, 4097, 4097, "NN"),
              (4096, 4096, 4096, "TN"), (4096, 4096, 4096, "NT"), (4096, 4096, 4096, "TT"),
              (1000, 1000, 1000, "TN"), (1000, 1000, 1000, "NT"), (1000, 1000, 1000, "TT"),
              (64, 4096, 4096, "NN"), (4096, 64, 4096, "NN"), (256, 256, 65536, "NN")]
    for (m, n, k, op) in shapes:
        a = torch.rand(k, m, device="cuda").t() if op[0] == "T" else torch.rand(m, k, device="cuda")
        b = torch.rand(n, k, device="cuda").t() if op[1] == "T" else torch.rand(k, n, device="cuda")
        c = torch.empty(m, n, device="cuda", dtype=torch.float32)
        iters = 50 if m * n * k <= 4096 ** 3 else 15
        ms = median_ms(lambda: torch.matmul(a, b, out=c), iters)
        print(f"| {m}×{n}×{k} | {op} | {ms:.3f} | {2 * m * n * k / ms / 1e9:.1f} |")


if __name__ == "__main__":
    main()
