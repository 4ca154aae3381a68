# Microbenchmark: wgmma issue throughput of one warpgroup against two, N = 128 (two per k step) or 256.
# Writes mb.ptx; each kernel loops `iters` times over 4 k steps of its wgmmas from shared memory.
import sys
TB = 1 if len(sys.argv) > 1 else 0
CONFIGS = {
    # name: (warpgroups, n, wgmmas per k step per warpgroup)
    "wg1_n128x2": (1, 128, 2),
    "wg2_n128x1": (2, 128, 1),
    "wg1_n256x1": (1, 256, 1),
    "wg2_n256x1": (2, 256, 1),
    "wg1_n64x4": (1, 64, 4),
}
out = [".version 8.0", ".target sm_90a", ".address_size 64", ".shared .align 1024 .b8 sm[49152];", ""]
for name, (wgs, n, per) in CONFIGS.items():
    regs = n // 2  # f32 accumulators per thread per wgmma
    total = regs * per
    L = [f".visible .entry {name}(.param .u32 iters, .param .u64 out)", "{",
         f"  .reg .b32 d<{total}>;", "  .reg .b32 r<16>;", "  .reg .b64 rd<24>;", "  .reg .pred p, sd;", "  .reg .f32 f<4>;",
         "  mov.u32 r0, %tid.x;", "  shr.u32 r1, r0, 7;", "  mov.u32 r2, sm;",
         "  setp.eq.u32 sd, r0, r0;"]
    for i in range(total):
        L.append(f"  mov.b32 d{i}, 0;")
    # A base: warpgroup g's rows (wgs > 1) or wgmma w's rows (per > 1), 8 KB apart; B at 16 KB.
    L.append("  mul.lo.u32 r3, r1, 8192;")
    L.append("  add.u32 r3, r3, r2;")  # A base of this warpgroup
    L.append("  add.u32 r4, r2, 16384;")  # B base
    hi = 0x40000040
    def desc(reg, base, off, j, dst):
        L.append(f"  add.u32 r5, {base}, {off + 32 * j};")
        L.append("  shr.u32 r5, r5, 4;")
        L.append("  and.b32 r5, r5, 16383;")
        L.append("  or.b32 r5, r5, 65536;")
        L.append(f"  mov.u32 r6, {hi};")
        L.append(f"  mov.b64 {dst}, {{r5, r6}};")
    for j in range(4):
        for w in range(per):
            desc("", "r3", 8192 * w if n <= 128 else 0, j, f"rd{j * per + w}")
        desc("", "r4", 0, j, f"rd{16 + j}")
    L.append("  ld.param.u32 r7, [iters];")
    L.append("LOOP:")
    L.append("  wgmma.fence.sync.aligned;")
    for j in range(4):
        for w in range(per):
            ds = ", ".join(f"d{w * regs + i}" for i in range(regs))
            L.append(f"  wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16 {{{ds}}}, rd{j * per + w}, rd{16 + j}, sd, 1, 1, 0, {TB};")
    L.append("  wgmma.commit_group.sync.aligned;")
    L.append("  wgmma.wait_group.sync.aligned 1;")
    L.append("  sub.u32 r7, r7, 1;")
    L.append("  setp.ne.u32 p, r7, 0;")
    L.append("  @p bra LOOP;")
    L.append("  wgmma.wait_group.sync.aligned 0;")
    L.append("  mov.b32 f0, d0;")
    for i in range(1, total):
        L.append(f"  mov.b32 f1, d{i};")
        L.append("  add.f32 f0, f0, f1;")
    L.append("  ld.param.u64 rd20, [out];")
    L.append("  mov.u32 r8, %ctaid.x;")
    L.append("  mad.lo.u32 r8, r8, 256, r0;")
    L.append("  mul.wide.u32 rd21, r8, 4;")
    L.append("  add.u64 rd20, rd20, rd21;")
    L.append("  st.global.f32 [rd20], f0;")
    L.append("  ret;")
    L.append("}")
    out += L + [""]
open("mb_tb.ptx" if TB else "mb.ptx", "w").write("\n".join(out))
