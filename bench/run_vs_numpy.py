#!/usr/bin/env python3
"""What a user waits for: `tilesched run` against numpy doing the same arithmetic.

For each case, numpy makes the inputs (seeded), `tilesched run FILE --input ...
--output-dir D --time-passes` simulates the kernel, and numpy computes the same
result on the same inputs. Printed per case: the `simulate` pass (ms, from
--time-passes), the whole command's wall time, numpy's time (best of 3), the
ratio simulate / numpy, and whether the simulated outputs agree with numpy's
(bit for bit where the arithmetic is the same fold; otherwise to 1e-5 relative).

    /usr/bin/python3 bench/run_vs_numpy.py [--tilesched build/tilesched] [--only NAME]

The goal (docs/performance.md, "Run time against numpy"): every ratio <= 10.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEED = os.path.join(ROOT, "bench", "speed")


def best_of(fn, repeat=3):
    best = None
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best * 1e3, out


def rms_numpy(x, w, eps, rows, width):
    x2 = x.reshape(rows, width)
    # The kernel's order: a float32 sum of squares per row, / width + eps, rsqrt.
    ss = np.einsum("ij,ij->i", x2, x2, dtype=np.float32)
    inv = (np.float32(1) / np.sqrt(ss / np.float32(width) + np.float32(eps))).astype(np.float32)
    y = (x2 * inv[:, None]) * w[None, :]
    return {"Y": y.reshape(-1), "R": inv}


def round_e4m3(v):
    """float32 -> the float8_e4m3fn grid (nearest even, saturating at 448), in
    float32 bit operations: drop 20 fraction bits with the carry trick in the
    normal range, a fixed quantum of 2^-9 below it."""
    v = np.ascontiguousarray(v, dtype=np.float32)
    u = v.view(np.uint32)
    lsb = (u >> np.uint32(20)) & np.uint32(1)
    normal = ((u + np.uint32(0x7FFFF) + lsb) & np.uint32(0xFFF00000)).view(np.float32)
    small = np.rint(v * np.float32(512)) / np.float32(512)
    r = np.where(np.abs(v) >= np.float32(2.0 ** -6), normal, small)
    return np.clip(r, np.float32(-448.0), np.float32(448.0))


def decode_e4m3(codes):
    """float8_e4m3fn codes (the .npy of such an output holds uint8) -> values."""
    c = codes.astype(np.int64)
    sign = np.where(c & 0x80, -1.0, 1.0)
    exp = (c >> 3) & 0xF
    frac = c & 0x7
    value = np.where(exp == 0, np.ldexp(frac.astype(np.float64), -9),
                     np.ldexp((frac + 8).astype(np.float64), exp - 10))
    value = np.where((exp == 0xF) & (frac == 0x7), np.nan, value)
    return sign * value


def fp8_numpy(x, rows, group):
    m, n = x.shape
    t = x.reshape(m, n // group, group)
    amax = np.maximum(np.abs(t).max(axis=2), np.float32(1e-4))
    scale = (amax / np.float32(448.0)).astype(np.float32)
    q = np.clip(t / scale[:, :, None], np.float32(-448.0), np.float32(448.0))
    return {"Q": round_e4m3(q).reshape(m, n), "S": scale}


def topk_numpy(s, k):
    # Largest first, the smaller index first among equal scores.
    order = np.argsort(-s, axis=1, kind="stable")[:, :k]
    return {"Idx": order.astype(np.int32)}


def cases():
    rng = np.random.default_rng(0)
    out = []

    n = 16 * 1024 * 1024
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    out.append(dict(
        name="vec_add 16M", file=os.path.join(ROOT, "examples", "vec_add.py"),
        defines=["N=16777216", "block_N=262144", "sub_N=8192"],
        inputs={"A": a, "B": b}, scalars={},
        numpy=lambda: {"C": a + b}, exact=True))

    rows = width = 4096
    x = rng.standard_normal(rows * width, dtype=np.float32)
    w = rng.standard_normal(width, dtype=np.float32)
    for name, f in (("SIMT rmsnorm 4096x4096", "rms_simt.py"),
                    ("persistent SIMT rmsnorm 4096x4096", "rms_persistent.py")):
        out.append(dict(
            name=name, file=os.path.join(SPEED, f), defines=[],
            inputs={"X": x, "W": w}, scalars={"eps": 1e-6},
            numpy=lambda: rms_numpy(x, w, 1e-6, rows, width), exact=False))

    s = rng.standard_normal((4096, 256), dtype=np.float32)
    out.append(dict(
        name="SIMD top-8 gate 4096x256", file=os.path.join(SPEED, "topk_simd.py"), defines=[],
        inputs={"Scores": s}, scalars={}, numpy=lambda: topk_numpy(s, 8), exact=True))

    xm = rng.standard_normal((8192, 8192), dtype=np.float32)
    out.append(dict(
        name="SIMT fp8 cast 8192x8192", file=os.path.join(SPEED, "fp8_simt.py"), defines=[],
        inputs={"X": xm}, scalars={}, numpy=lambda: fp8_numpy(xm, 32, 128), exact=True, fp8="Q"))
    return out


def run_case(binary, case, tmp):
    args = [binary, "run", case["file"], "--time-passes", "--output-dir",
            os.path.join(tmp, "out")]
    for d in case["defines"]:
        args += ["-D", d]
    for name, arr in case["inputs"].items():
        path = os.path.join(tmp, name + ".npy")
        np.save(path, arr)
        args += ["--input", f"{name}={path}"]
    for name, v in case["scalars"].items():
        args += ["--input", f"{name}={v}"]
    t = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True)
    wall = (time.perf_counter() - t) * 1e3
    m = re.search(r"^\s*simulate\s+([0-9.]+)", proc.stdout, re.M)
    passed = "-> PASS" in proc.stdout
    if proc.returncode != 0 or not m:
        sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-2000:])
        return None
    return float(m.group(1)), wall, passed


def agree(case, tmp, expected):
    worst = 0.0
    for name, want in expected.items():
        got = np.load(os.path.join(tmp, "out", name + ".npy"))
        got = decode_e4m3(got) if case.get("fp8") == name else got.astype(np.float64)
        want = np.asarray(want, dtype=np.float64).reshape(got.shape)
        if case["exact"]:
            if not np.array_equal(got, want):
                return "differs"
        else:
            rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-30)
            worst = max(worst, float(rel.max()) if rel.size else 0.0)
    return "bit-exact" if case["exact"] else f"rel<= {worst:.1e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilesched", default=os.path.join(ROOT, "build", "tilesched"))
    ap.add_argument("--only", default=None, help="run the cases whose name contains this")
    opts = ap.parse_args()
    print(f"{'case':36} {'simulate ms':>12} {'run wall ms':>12} {'numpy ms':>9} "
          f"{'ratio':>6}  outputs")
    ratios = []
    for case in cases():
        if opts.only and opts.only not in case["name"]:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            r = run_case(opts.tilesched, case, tmp)
            if r is None:
                print(f"{case['name']:36} tilesched run failed")
                continue
            sim_ms, wall_ms, passed = r
            np_ms, expected = best_of(case["numpy"])
            verdict = agree(case, tmp, expected)
            ratio = sim_ms / np_ms
            ratios.append(ratio)
            print(f"{case['name']:36} {sim_ms:12.0f} {wall_ms:12.0f} {np_ms:9.1f} {ratio:6.1f}  "
                  f"{verdict}{'' if passed else ' (run did not PASS)'}", flush=True)
    if ratios:
        print(f"worst ratio {max(ratios):.1f} (goal <= 10)")


if __name__ == "__main__":
    main()
