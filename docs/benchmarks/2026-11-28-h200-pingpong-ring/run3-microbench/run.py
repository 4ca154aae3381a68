import cupy as cp, numpy as np
import sys
mod = cp.RawModule(path=".gpu/mb/" + (sys.argv[1] if len(sys.argv) > 1 else "mb.cubin"))
out = cp.zeros(264 * 256, dtype=cp.float32)
sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
clk = cp.cuda.Device(0).attributes["ClockRate"] * 1e3
CONFIGS = {"wg1_n128x2": (1, 128, 2), "wg2_n128x1": (2, 128, 1), "wg1_n256x1": (1, 256, 1), "wg2_n256x1": (2, 256, 1), "wg1_n64x4": (1, 64, 4)}
iters = 20000
print(f"SMs {sms}, max clock {clk/1e9:.2f} GHz; peak at max clock (4096 flop/clk/SM): {sms*clk*4096/1e12:.0f} TFLOP/s")
print(sys.argv)
for rnd in range(2):
    for name, (wgs, n, per) in CONFIGS.items():
        for blocks_per_sm in (1, 2):
            if wgs == 2 and blocks_per_sm == 2: continue
            f = mod.get_function(name)
            grid = sms * blocks_per_sm
            f((grid,), (128 * wgs,), (np.uint32(10), out))
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record(); f((grid,), (128 * wgs,), (np.uint32(iters), out)); e.record(); e.synchronize()
            ms = cp.cuda.get_elapsed_time(s, e)
            flops = 2 * 64 * n * 16 * per * 4 * wgs * iters * grid
            print(f"round {rnd} {name:12s} blocks/SM {blocks_per_sm}: {ms:8.3f} ms  {flops/ms/1e9:7.1f} TFLOP/s")
