#!/usr/bin/env python3
"""A replica of `WgmmaTile::auto`'s estimate (host/src/gemm/wgmma.rs, 2026-11-29) to weigh a change to it against
forced-tile runs before building: reads the bench's JSON lines (`FERROTILE_BENCH_TILES` logs or records), and for
each (shape, fused) with every tile forced prints the tile the model picks, the fastest tile and the loss.

    python3 estimate_replica.py run1/b-1.log run1/b-2.log [--share 2 --stores 2 --min-ktiles 16]   # the model before
    python3 estimate_replica.py run3/tiles-1.log run3/tiles-2.log                                      # the committed one
    python3 estimate_replica.py ... --speed 1.25 --fused-epi 12      # WIDE_TILE_SPEEDUP and FUSED_EPILOGUE_KTILES
                                                                     # before their refit (../2026-11-29-h200-tile-lead/)

bf16 -> bf16 only (BK = 64), 132 multiprocessors; the `A` restage copy term (STAGE_ROWS_PER_UNIT) is included. Keep it
in step with the Rust when either changes."""
import argparse, collections, json, re

SMS, BK = 132, 64
SPEED = {'128x256': 1.1, '128x128': 1.0, 'pp_128x128': 1.0, 'swap_64x128': 0.6}
WORK = {'128x256': 2.0, '128x128': 1.0, 'pp_128x128': 1.0, 'swap_64x128': 0.5}
BN = {'128x256': 256, '128x128': 128, 'pp_128x128': 128, 'swap_64x128': 64}
EPI, FUSED_EPI, THREADED_C, SPLIT_PART = 4.0, 5.0, 12.0, 8.0
MIN_SPLIT_KTILES, MAX_SPLITS, MAX_TAIL_PARTS = 4, 32, 4
RESTAGE_A_MIN, STAGE_ROWS_PER_UNIT = 2048, 5000.0


def cdiv(a, b):
    return -(-a // b)


def split_k(tiles, kt):
    last = tiles % SMS
    if last == 0 or 2 * last > SMS:
        return 0, 1
    want = min(SMS // last, kt // MIN_SPLIT_KTILES, MAX_SPLITS)
    if want <= 1:
        return 0, 1
    if tiles > last:
        want = min(want, MAX_TAIL_PARTS)
    return tiles - last, cdiv(kt, cdiv(kt, want))


def waves(tiles, kt):
    whole, parts = split_k(tiles, kt)
    return cdiv(tiles, SMS) if parts == 1 else whole // SMS + cdiv(kt, parts) / kt


def estimate(t, tiles, kt, fused, threaded, a):
    values = FUSED_EPI if fused else EPI
    stores = THREADED_C if threaded and not t.startswith('swap') else 0.0
    if t.startswith('pp'):
        own = (a.share * values + a.stores * stores) / kt
        return (cdiv(tiles, SMS) * max(1.0, 0.5 + 0.5 * own) + own) / a.pp
    epi = (values + stores) / kt
    _, parts = split_k(tiles, kt)
    reduce = parts * SPLIT_PART / kt if parts > 1 else 0.0
    return waves(tiles, kt) * WORK[t] * (1 / SPEED[t] + epi) + reduce * WORK[t]


def pick(batch, m, n, k, fused, a):
    kt = cdiv(k, BK)
    threaded = (n * 2) % 16 != 0
    lda = k * 2
    a_off = lda % 16 == 0 and lda % 128 != 0
    best = None
    for t in ['128x256', '128x128', 'swap_64x128', 'pp_128x128']:
        if t.startswith('pp') and kt < a.min_ktiles:
            continue
        rows, cols = (n, m) if t.startswith('swap') else (m, n)
        e = estimate(t, cdiv(rows, 128) * cdiv(cols, BN[t]) * batch, kt, fused, threaded, a)
        if a_off and BN[t] == 128 and not t.startswith('swap') and m >= RESTAGE_A_MIN and n >= RESTAGE_A_MIN:
            e += m * batch / STAGE_ROWS_PER_UNIT
        if best is None or e < best[0]:
            best = (e, t)
    return best[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('files', nargs='+')
    ap.add_argument('--share', type=float, default=1.0, help='PINGPONG_EPILOGUE_SHARE (before 2026-11-29: 2)')
    ap.add_argument('--stores', type=float, default=2.0, help="the ping-pong warpgroup's threaded-C stores factor")
    ap.add_argument('--speed', type=float, default=1.1, help='WIDE_TILE_SPEEDUP (before the refit: 1.25)')
    ap.add_argument('--pp', type=float, default=1.0, help="the ping-pong tile's throughput against the 128 x 128 one (the model: 1)")
    ap.add_argument('--fused-epi', type=float, default=5.0, help='FUSED_EPILOGUE_KTILES (before its refit: 12)')
    ap.add_argument('--min-ktiles', type=int, default=2, help='PINGPONG_MIN_KTILES (before: 16)')
    a = ap.parse_args()
    SPEED['128x256'] = a.speed
    global FUSED_EPI
    FUSED_EPI = a.fused_epi
    times = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in a.files:
        for line in open(f):
            line = line[5:] if line.startswith('JSON ') else line
            if not line.startswith('{'):
                continue
            r = json.loads(line)
            if r.get('dtype') != 'bf16→bf16' or r['kernel'].startswith(('auto', 'cuBLAS', 'mma')) or 'stream-K' in r['kernel'] or 'every tile whole' in r['kernel']:
                continue
            tile = r['kernel'].split(',')[0].replace('wgmma_', '')
            if tile in SPEED:
                times[(r['shape'], 'fused' in r['kernel'])][tile].append(r.get('ms', r.get('time_ms')))
    total = 0.0
    for (shape, fused), d in sorted(times.items()):
        dims = [int(x) for x in re.findall(r'\d+', shape.split('(')[0])]
        batch, m, n, k = (1, *dims) if len(dims) == 3 else dims
        choice = pick(batch, m, n, k, fused, a)
        if 'Bᵀ' in shape or choice not in d or len(d) < 3:
            continue
        best_t, best = min(((min(v), t) for t, v in d.items()))[::-1]
        loss = min(d[choice]) / best - 1
        total += loss
        print(f"{shape:28} {'fused' if fused else 'plain':5} model {choice:12} fastest {best_t:12} loss {100 * loss:5.1f} %")
    print(f"sum of losses: {100 * total:.1f} points")


if __name__ == '__main__':
    main()
