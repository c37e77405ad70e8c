#!/usr/bin/python3
"""Randomized tests of the manual form of mixed kernels (docs/simulator.md,
"Core groups"): seeded kernels in which `with T.Cube():` computes GEMM tiles
and hands each one to the vector cores through a ring of UB buffers, and
`with T.Vector() as sid:` scales its rows and stores them, every hand-off
ordered by hand-written cross-core flags (mode 4) and intra-core flags.

For every seed:

- the kernel runs under `--schedule as-written` (and `auto`, which runs the
  manual form as written too) and must PASS: outputs bit for bit equal to
  the group reference, zero races and flag errors;
- its output must equal an independent numpy model (binary32 GEMM of float16
  inputs, k in increasing order, then `* (1 + row half) + offset`), so a
  mistake shared by the reference and the simulator (which core's UB a copy
  lands in, which half a dual copy gives to which AIV) shows;
- mutants: the kernel with one synchronisation line deleted (a cross-core set
  or wait, or an intra-core one) must not PASS: a deadlock, a flag error, a
  race or a wrong value, never silence. A line moved after the statement
  that follows it may be harmless (a wait for a buffer nothing has used
  yet), so such a mutant may PASS, but only with the model's values: a PASS
  with other values is a race that went unnoticed.

The generator varies the AIV count (`vector=1` with a plain L0C -> UB copy,
which lands in AIV 0's UB; two AIVs with a hardware `T.dual_copy`), the ring
depth (1 or 2 UB buffers), the L1 stages, tile shapes, K tiles, tiles per
block, grid, the flag id bases and whether the vector side writes its ids as
`id + 16 * sid` (upstream's form; an AIV takes its id mod 16).

  run_manual_random.py --tilesched build/tilesched --seeds 0:40 [--mutants 3]
Exit status: 0 when every kernel and mutant behaved, 1 otherwise.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle"))
from oracle_lib import gemm, load, store  # noqa: E402


class Params:
    def __init__(self, seed):
        rng = random.Random(seed)
        self.seed = seed
        self.vectors = rng.choice([1, 2])
        self.ring = rng.choice([1, 2])
        self.stages = rng.choice([1, 2])
        self.tm = rng.choice([32, 64]) if self.vectors == 2 else rng.choice([16, 32])
        self.tn = rng.choice([16, 32])
        self.tk = rng.choice([16, 32])
        self.k_tiles = rng.choice([1, 2, 3])
        self.grid = rng.choice([1, 2])
        self.tiles = rng.choice([1, 2, 3])  # per block
        total = self.grid * self.tiles
        self.n_tiles = rng.choice([d for d in (1, 2, 3) if total % d == 0])
        self.m_tiles = total // self.n_tiles
        # Two disjoint id ranges of `ring` ids each in 0-15, either order.
        self.free = rng.randrange(0, 16 - self.ring + 1)
        self.full = self.free
        while abs(self.full - self.free) < self.ring:
            self.full = rng.randrange(0, 16 - self.ring + 1)
        self.upstream_ids = rng.random() < 0.5
        self.offset = rng.choice([0.5, -1.25, 3.0])
        self.M = self.tm * self.m_tiles
        self.N = self.tn * self.n_tiles
        self.K = self.tk * self.k_tiles
        self.half = self.tm // self.vectors


def render(p):
    """The kernel file of `p`: a list of lines; synchronisation lines end in
    `# sync` so that mutants can find them."""
    aiv_id = (lambda base: f"{base} + b + sid * 16") if p.upstream_ids else (lambda base: f"{base} + b")
    L = []
    a = L.append
    a("import tilelang.language as T")
    a("")
    a("")
    a("@T.prim_func")
    a(f'def main(X: T.Tensor(({p.M}, {p.K}), "float16"), W: T.Tensor(({p.K}, {p.N}), "float16"),')
    a(f'         C: T.Tensor(({p.M}, {p.N}), "float32")):')
    a(f"    with T.Kernel({p.grid}) as bx:")
    a(f'        x_l1 = T.alloc_l1(({p.stages}, {p.tm}, {p.tk}), "float16")')
    a(f'        w_l1 = T.alloc_l1(({p.stages}, {p.tk}, {p.tn}), "float16")')
    a(f'        acc = T.alloc_l0c(({p.tm}, {p.tn}), "float32")')
    a(f'        hand = T.alloc_ub(({p.ring}, {p.half}, {p.tn}), "float32")')
    a(f'        out_ub = T.alloc_ub(({p.half}, {p.tn}), "float32")')
    a("        with T.Cube():")
    a(f"            for f in T.serial({p.stages}):")
    a('                T.ascend_set_flag("MTE1_MTE2", f)  # sync')
    a('            T.ascend_set_flag("FIX_M", 0)  # sync')
    a(f"            for t in T.serial({p.tiles}):")
    a(f"                tile = t * {p.grid} + bx")
    a(f"                m = tile // {p.n_tiles}")
    a(f"                n = tile % {p.n_tiles}")
    a(f"                b = t % {p.ring}")
    a(f"                for kt in T.serial({p.k_tiles}):")
    a(f"                    f = (t * {p.k_tiles} + kt) % {p.stages}")
    a('                    T.ascend_wait_flag("MTE1_MTE2", f)  # sync')
    a(f"                    T.copy(X[m * {p.tm}, kt * {p.tk}], x_l1[f, :, :])")
    a(f"                    T.copy(W[kt * {p.tk}, n * {p.tn}], w_l1[f, :, :])")
    a('                    T.ascend_set_flag("MTE2_MTE1", f)  # sync')
    a('                    T.ascend_wait_flag("MTE2_MTE1", f)  # sync')
    a("                    if kt == 0:")
    a('                        T.ascend_wait_flag("FIX_M", 0)  # sync')
    a("                    T.gemm(x_l1[f, :, :], w_l1[f, :, :], acc, clear_accum=(kt == 0))")
    a('                    T.ascend_set_flag("MTE1_MTE2", f)  # sync')
    a('                T.ascend_set_flag("M_FIX", 0)  # sync')
    a('                T.ascend_wait_flag("M_FIX", 0)  # sync')
    for s in range(p.vectors):
        a(f'                T.ascend_cross_core_wait_flag(4, "PIPE_FIX", {p.free + 16 * s} + b)  # sync')
    if p.vectors == 2:
        a("                T.dual_copy(acc, hand[b, :, :])")
    else:
        a("                T.copy(acc, hand[b, :, :])")
    for s in range(p.vectors):
        a(f'                T.ascend_cross_core_set_flag(4, "PIPE_FIX", {p.full + 16 * s} + b)  # sync')
    a('                T.ascend_set_flag("FIX_M", 0)  # sync')
    a(f"            for f in T.serial({p.stages}):")
    a('                T.ascend_wait_flag("MTE1_MTE2", f)  # sync')
    a('            T.ascend_wait_flag("FIX_M", 0)  # sync')
    a(f"            for b in T.serial({p.ring}):")
    for s in range(p.vectors):
        a(f'                T.ascend_cross_core_wait_flag(4, "PIPE_FIX", {p.free + 16 * s} + b)  # sync')
    a(f"        with T.Vector(vector={p.vectors}) as sid:")
    a(f"            for b in T.serial({p.ring}):")
    a(f'                T.ascend_cross_core_set_flag(4, "PIPE_V", {aiv_id(p.free)})  # sync')
    a('            T.ascend_set_flag("MTE3_V", 0)  # sync')
    a(f"            for t in T.serial({p.tiles}):")
    a(f"                tile = t * {p.grid} + bx")
    a(f"                m = tile // {p.n_tiles}")
    a(f"                n = tile % {p.n_tiles}")
    a(f"                b = t % {p.ring}")
    a(f'                T.ascend_cross_core_wait_flag(4, "PIPE_V", {aiv_id(p.full)})  # sync')
    a('                T.ascend_wait_flag("MTE3_V", 0)  # sync')
    a(f"                for i, j in T.Parallel({p.half}, {p.tn}):")
    a(f'                    out_ub[i, j] = hand[b, i, j] * T.cast(sid + 1, "float32") + {p.offset}')
    a(f'                T.ascend_cross_core_set_flag(4, "PIPE_V", {aiv_id(p.free)})  # sync')
    a('                T.ascend_set_flag("V_MTE3", 0)  # sync')
    a('                T.ascend_wait_flag("V_MTE3", 0)  # sync')
    a(f"                T.copy(out_ub, C[m * {p.tm} + sid * {p.half}, n * {p.tn}])")
    a('                T.ascend_set_flag("MTE3_V", 0)  # sync')
    a('            T.ascend_wait_flag("MTE3_V", 0)  # sync')
    return L


def inputs(p):
    rng = np.random.default_rng(p.seed)
    # Random float16 values (repeats allowed: the tiles are larger than the
    # pool of distinct ones), both signs.
    return {
        "X": rng.uniform(-2.0, 2.0, size=(p.M, p.K)).astype(np.float16),
        "W": rng.uniform(-2.0, 2.0, size=(p.K, p.N)).astype(np.float16),
    }


def expected(p, ins):
    """C from the numpy model: the GEMM, then each AIV's rows of a tile
    scaled by its index + 1 and offset, each step rounded to binary32."""
    c = gemm(load(ins["X"], "float16"), load(ins["W"], "float16"))
    rows = np.arange(p.M) % p.tm
    scale = (1 + rows // p.half).astype(np.float32)
    c = (c * scale[:, None]).astype(np.float32) + np.float32(p.offset)
    return store(c, "float32")


def run(tilesched, path, schedule, workdir, ins):
    args = [tilesched, "run", path, "--schedule", schedule, "--output-dir", os.path.join(workdir, "out")]
    for name, arr in ins.items():
        f = os.path.join(workdir, name + ".npy")
        np.save(f, arr)
        args += ["--input", f"{name}={f}"]
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    return proc.returncode, proc.stdout + proc.stderr


def first_error(text):
    for line in text.splitlines():
        if "error:" in line or "FAIL" in line:
            return line.strip()[:200]
    return text.strip().splitlines()[-1][:200] if text.strip() else ""


def indent(line):
    return len(line) - len(line.lstrip())


def late(lines, i):
    """`lines` with line i moved after the statement that follows it (with
    that statement's body), or None when it is the last of its block."""
    j = i + 1
    if j >= len(lines) or indent(lines[j]) != indent(lines[i]) or lines[j].endswith("# sync"):
        return None
    end = j + 1
    while end < len(lines) and indent(lines[end]) > indent(lines[i]):
        end += 1
    return lines[:i] + lines[j:end] + [lines[i]] + lines[end:]


def how_it_failed(code, text):
    """The first thing a mutant's run reported, as a category."""
    if code == 0:
        return "pass"
    for kind, words in (
        ("race", ["error: race on"]),
        ("deadlock", ["deadlock"]),
        ("flag error", ["pending sets", "never waited", "flag error", "still set", "outside the pool"]),
        ("wrong value", ["mismatch", "differs", "does not match"]),
        ("compile error", ["error:"]),
    ):
        if any(w in text for w in words):
            return kind
    return f"exit {code}"


def check_seed(tilesched, seed, mutants, workdir, kinds):
    """Problems found for one seed (empty: all well) and the number of mutants run."""
    p = Params(seed)
    lines = render(p)
    path = os.path.join(workdir, f"manual_{seed}.py")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    ins = inputs(p)
    want = expected(p, ins)
    problems = []
    for schedule in ("as-written", "auto"):
        code, text = run(tilesched, path, schedule, workdir, ins)
        if code != 0 or "-> PASS" not in text:
            problems.append(f"seed {seed} {schedule}: exit {code}: {first_error(text)}")
            continue
        got = np.load(os.path.join(workdir, "out", "C.npy"))
        if got.tobytes() != want.tobytes():
            bad = int(np.sum(got.view(np.uint32) != want.view(np.uint32)))
            problems.append(f"seed {seed} {schedule}: {bad} elements differ from the numpy model")
    sync = [i for i, line in enumerate(lines) if line.endswith("# sync")]
    rng = random.Random(seed * 7919 + 1)
    chosen = rng.sample(sync, min(mutants, len(sync)))
    for n, i in enumerate(chosen):
        mutant = late(lines, i) if n % 2 else None
        what = "moved after the next statement" if mutant else "deleted"
        if not mutant:
            mutant = lines[:i] + [lines[i][: len(lines[i]) - len(lines[i].lstrip())] + "pass"] + lines[i + 1 :]
        mpath = os.path.join(workdir, f"manual_{seed}_mutant{i}.py")
        with open(mpath, "w") as f:
            f.write("\n".join(mutant) + "\n")
        code, text = run(tilesched, mpath, "as-written", workdir, ins)
        crashed = code is None or code < 0 or code not in (0, 1, 3) or "internal error" in text
        kinds[how_it_failed(code, text)] = kinds.get(how_it_failed(code, text), 0) + 1
        if crashed:
            problems.append(f"seed {seed} mutant, line {i + 1} {what} ({lines[i].strip()}): crash, exit {code}")
        elif code == 0 and "-> PASS" in text:
            got = np.load(os.path.join(workdir, "out", "C.npy"))
            if what != "deleted" and got.tobytes() == want.tobytes():
                continue  # a later wait or set can be harmless (nothing reuses the buffer yet)
            problems.append(
                f"seed {seed} mutant, line {i + 1} {what} ({lines[i].strip()}): PASS "
                f"({'same' if got.tobytes() == want.tobytes() else 'different'} values): a missing "
                "flag went unnoticed"
            )
    return problems, len(chosen)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tilesched", required=True)
    ap.add_argument("--seeds", default="0:40", help="A:B, half-open")
    ap.add_argument("--mutants", type=int, default=3, help="sync lines deleted per seed, one at a time")
    ap.add_argument("--keep", help="write the kernels here instead of a temporary folder")
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.seeds.split(":"))
    workdir = args.keep or tempfile.mkdtemp(prefix="tilesched_manual_random_")
    os.makedirs(workdir, exist_ok=True)
    problems, mutants, kinds = [], 0, {}
    for seed in range(lo, hi):
        found, ran = check_seed(args.tilesched, seed, args.mutants, workdir, kinds)
        problems += found
        mutants += ran
    for line in problems:
        print(line)
    print(f"{hi - lo} manual-form kernels, {mutants} mutants: {len(problems)} problems (kernels in {workdir})")
    print("mutants, by what their run reported first: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
