# Read-bandwidth references for the decode shapes: a device copy of B, a
# read-only reduction of B, and torch.matmul (cuBLAS) for 1xNxK / 64xNxK.
import torch
def t(f, n=200):
    for _ in range(10): f()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(n):
        s.record(); f(); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); return ts[len(ts)//2] * 1e-3
def tb2b(f, reps=10, n=50):
    for _ in range(10): f()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(n):
        s.record()
        for _ in range(reps): f()
        e.record(); e.synchronize(); ts.append(s.elapsed_time(e) / reps)
    ts.sort(); return ts[len(ts)//2] * 1e-3
for (m, n, k) in [(1, 8192, 8192), (64, 14336, 4096)]:
    B = torch.randn(k, n, device='cuda', dtype=torch.bfloat16)
    A = torch.randn(m, k, device='cuda', dtype=torch.bfloat16)
    D = torch.empty_like(B)
    nb = B.numel() * 2
    copy = t(lambda: D.copy_(B))
    hbm = 2 * nb / copy
    red = t(lambda: B.sum(dtype=torch.float32))
    red2 = tb2b(lambda: B.sum(dtype=torch.float32))
    mm = t(lambda: A @ B)
    mm2 = tb2b(lambda: A @ B)
    print(f"{m}x{n}x{k}: copy {copy*1e6:.1f} us ({hbm/1e9:.0f} GB/s r+w); B.sum one {red*1e6:.1f} us ({nb/red/hbm*100:.1f} % of copy), b2b {red2*1e6:.1f} us ({nb/red2/hbm*100:.1f} %); torch matmul one {mm*1e6:.1f} us ({nb/mm/hbm*100:.1f} %), b2b {mm2*1e6:.1f} us ({nb/mm2/hbm*100:.1f} %)")
