#!/usr/bin/python3
"""Randomized differential tester (issue 11): generates seeded kernels, runs each
in every available `tilesched run --schedule` mode and checks

- exit 0 and PASS: outputs bit-identical to the reference, zero races, zero
  flag errors (the report's `simulation` object);
- no crash: a signal, a timeout, an exit status other than 0/1/3 or an
  "internal error" is a crash;
- compile errors only where the generator intended them (`double` on a kernel
  whose buffers may not fit twice: the capacity error of uniformSchedule);
- the output tensors of every passing mode are bit-identical to each other
  (`--output-dir`, same `--seed`), a check independent of the simulator's own.

On a failure it prints the seed, writes the kernel and a minimised version
(statements deleted, ifs and loops unwrapped, trip counts lowered while the same
failure persists and the kernel stays valid) to the output directory.
A coverage summary (constructs, modes, ring sizes, trip-count classes, versions
and version modes the lowering chose) is printed at the end.

  run_random.py --tilesched build/tilesched --seeds 0:1000 --jobs 2 --out /tmp/rnd
Exit status: 0 when every kernel passed, 1 otherwise.
"""

import argparse
import concurrent.futures
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_kernel  # noqa: E402

ALL_MODES = ["serial", "none", "double", "auto"]
PROBE = '''import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1, is_npu=True) as bx:
        a = T.alloc_ub((16,), "float32")
        for i in T.Pipelined(4, num_stages=2):
            T.copy(A[i * 16 : i * 16 + 16], a)
            T.copy(a, B[i * 16 : i * 16 + 16])
'''


def detect_modes(tilesched, workdir):
    """The modes this binary runs. A mode is left out only when the binary says it
    does not have it (a usage error, or "not available" / "does not have" on a
    two-copy probe); a mode that fails the probe otherwise is kept, so its
    failures show."""
    path = os.path.join(workdir, "probe.py")
    with open(path, "w") as f:
        f.write(PROBE)
    modes = []
    for m in ALL_MODES:
        p = subprocess.run([tilesched, "run", path, "--schedule", m], capture_output=True, text=True, timeout=120)
        text = p.stdout + p.stderr
        missing = p.returncode == 2 or (p.returncode == 1 and re.search(r"not available|does not have", text))
        if not missing:
            modes.append(m)
    return modes


class Outcome:
    def __init__(self, mode, kind, detail="", report=None):
        self.mode = mode
        self.kind = kind  # pass | expected-error | crash | timeout | internal | compile-error | fail:<what>
        self.detail = detail
        self.report = report

    @property
    def ok(self):
        return self.kind in ("pass", "expected-error")


def derived_target(path, out):
    """The kernel's `# target-capacity: {scope: bytes}` line as a target file:
    targets/ascend950.json with those capacities (also under SIMT VF), written
    to `out`; None when the kernel has no such line."""
    with open(path) as f:
        m = re.search(r"^# target-capacity: (\{.*\})$", f.read(), re.M)
    if not m:
        return None
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "targets", "ascend950.json")) as f:
        t = json.load(f)
    caps = json.loads(m.group(1))
    t["name"] = "derived"
    t["capacity"].update(caps)
    for scope in list(t.get("capacity_with_simt_vf", {})):
        if scope in caps:
            t["capacity_with_simt_vf"][scope] = min(t["capacity_with_simt_vf"][scope], caps[scope])
    with open(out, "w") as f:
        json.dump(t, f, indent=1)
    return out


def run_mode(tilesched, path, mode, workdir, expect_double, timeout):
    tag = os.path.join(workdir, os.path.basename(path)[:-3] + "." + mode)
    rep = tag + ".json"
    outdir = tag + ".out"
    shutil.rmtree(outdir, ignore_errors=True)
    for f in (rep,):
        if os.path.exists(f):
            os.remove(f)
    cmd = [tilesched, "run", path, "--schedule", mode, "--report", rep, "--output-dir", outdir]
    target = derived_target(path, tag + ".target.json")
    if target:
        cmd += ["--target", target]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome(mode, "timeout", f"no answer after {timeout} s")
    text = p.stdout + p.stderr
    if p.returncode < 0:
        return Outcome(mode, "crash", f"killed by signal {-p.returncode}\n{text[-2000:]}")
    if p.returncode not in (0, 1, 3):
        return Outcome(mode, "crash", f"exit status {p.returncode}\n{text[-2000:]}")
    if "internal error" in text:
        return Outcome(mode, "internal", first_error(text, "internal error"))
    report = None
    try:
        with open(rep) as f:
            report = json.load(f)
    except (OSError, ValueError):
        pass
    if p.returncode == 1:
        capacity = "version" in text and "bytes of" in text and "more than" in text
        if mode == "double" and expect_double == "either" and capacity:
            return Outcome(mode, "expected-error", first_error(text, "error:"), report)
        # auto charges fixed counts up front (SPEC §5): a tight kernel whose
        # annotated counts exceed UB is a located compile error, as intended.
        fixed_capacity = ("needs at least" in text and "annotated version counts" in text) or (
            "versions of" in text and "make scope" in text)
        if mode == "auto" and expect_double == "either" and fixed_capacity:
            return Outcome(mode, "expected-error", first_error(text, "error:"), report)
        # SPEC §6.1: an explicit "counter" on a storage that the schedule puts
        # at several stages under enable_offset is an error at the annotation.
        if "cannot use counter mode: with enable_offset" in text:
            return Outcome(mode, "expected-error", first_error(text, "error:"), report)
        return Outcome(mode, "compile-error", first_error(text, "error:"), report)
    sim = (report or {}).get("simulation") or {}
    problems = []
    if p.returncode != 0:
        problems.append(f"exit status {p.returncode}")
    if "-> PASS" not in text:
        problems.append("no PASS verdict")
    if sim.get("outputs_match") is not True:
        problems.append("outputs differ from the reference")
    for key in ("races", "flag_errors", "capacity_errors", "runtime_errors"):
        if sim.get(key, 0):
            problems.append(f"{key} {sim.get(key)}")
    # SPEC §2.3: an unlimited scope lets the solver pick versions beyond the
    # real capacity; the simulator still models the hardware and says so. With
    # matching outputs and nothing else wrong, that is the intended outcome.
    only_capacity = (sim.get("capacity_errors") and sim.get("outputs_match") is True and
                     not any(sim.get(k, 0) for k in ("races", "flag_errors", "runtime_errors")))
    if problems and mode == "auto" and only_capacity and \
            "lifts the limit for the scheduler only" in text:
        return Outcome(mode, "expected-error", first_error(text, "error:"), report)
    if problems:
        what = "race" if sim.get("races") else "flag" if sim.get("flag_errors") else \
            "mismatch" if sim.get("outputs_match") is False else "capacity" if sim.get("capacity_errors") else \
            "runtime" if sim.get("runtime_errors") else "other"
        return Outcome(mode, "fail:" + what, "; ".join(problems) + "\n" + first_error(text, "error:"), report)
    return Outcome(mode, "pass", "", report)


def first_error(text, needle):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if needle in line:
            return "\n".join(lines[i:i + 6])
    return "\n".join(lines[-8:])


def outputs_equal(workdir, base, a, b):
    da = os.path.join(workdir, f"{base}.{a}.out")
    db = os.path.join(workdir, f"{base}.{b}.out")
    if not (os.path.isdir(da) and os.path.isdir(db)):
        return True, ""
    fa, fb = sorted(os.listdir(da)), sorted(os.listdir(db))
    if fa != fb:
        return False, f"{a} wrote {fa}, {b} wrote {fb}"
    for f in fa:
        if not filecmp.cmp(os.path.join(da, f), os.path.join(db, f), shallow=False):
            return False, f"{f} differs between {a} and {b}"
    return True, ""


def check_kernel(tilesched, kernel, path, modes, workdir, timeout, only=None):
    """Runs `path` in `modes`; returns the list of outcomes (failures and passes)."""
    with open(path, "w") as f:
        f.write(kernel.render())
    outs = []
    for m in modes:
        outs.append(run_mode(tilesched, path, m, workdir, kernel.expect_double, timeout))
    passed = [o.mode for o in outs if o.kind == "pass"]
    base = os.path.basename(path)[:-3]
    for m in passed[1:]:
        same, why = outputs_equal(workdir, base, passed[0], m)
        if not same:
            outs.append(Outcome(f"{passed[0]}/{m}", "fail:cross-mode", why))
    for m in modes:
        shutil.rmtree(os.path.join(workdir, f"{base}.{m}.out"), ignore_errors=True)
    return outs


RACE_RE = re.compile(r"error: race on '[^']*' bytes \[[^)]*\): (read|written) by .*? \((\w+)\) here and "
                     r"(read|written) by .*? \((\w+)\) at line")


def fingerprint(outs):
    """A short class of the failure, to group seeds: 'race MTE2 write / MTE3 read' and the like."""
    parts = set()
    for o in outs:
        if o.ok:
            continue
        m = RACE_RE.search(o.detail)
        if o.kind == "fail:race" and m:
            acc = sorted([(m.group(2), m.group(1)), (m.group(4), m.group(3))], key=lambda x: x[1] != "written")
            parts.add("race " + " / ".join(f"{p} {'write' if a == 'written' else 'read'}" for p, a in acc))
        else:
            parts.add(o.kind)
    return "; ".join(sorted(parts))


def signature(outs):
    return sorted((o.mode, o.kind) for o in outs if not o.ok)


# ----------------------------------------------------------------------------
# Minimisation


def candidates(kernel):
    """Smaller variants of `kernel`, biggest cuts first."""
    import copy

    def bodies(k):
        out = [k.body]
        for node in gen_kernel.walk(k.body):
            if isinstance(node, gen_kernel.Loop):
                out.append(node.body)
            elif isinstance(node, gen_kernel.If):
                out.append(node.body)
                if node.orelse is not None:
                    out.append(node.orelse)
        return out

    n_bodies = len(bodies(kernel))
    for bi in range(n_bodies):
        for ni in range(len(bodies(kernel)[bi])):
            # delete the node
            k = copy.deepcopy(kernel)
            b = bodies(k)[bi]
            node = b[ni]
            del b[ni]
            yield k
            # unwrap a loop or an if (its body replaces it)
            if isinstance(node, (gen_kernel.Loop, gen_kernel.If)):
                k = copy.deepcopy(kernel)
                b = bodies(k)[bi]
                nd = b[ni]
                b[ni:ni + 1] = nd.body
                yield k
            if isinstance(node, gen_kernel.If) and node.orelse is not None:
                k = copy.deepcopy(kernel)
                b = bodies(k)[bi]
                nd = b[ni]
                b[ni:ni + 1] = nd.orelse
                yield k
                k = copy.deepcopy(kernel)
                bodies(k)[bi][ni].orelse = None
                yield k
    loops = [n for n in gen_kernel.walk(kernel.body) if isinstance(n, gen_kernel.Loop)]
    for li in range(len(loops)):
        for t in (0, 1, 2, 3):
            if t < loops[li].trip:
                k = copy.deepcopy(kernel)
                [n for n in gen_kernel.walk(k.body) if isinstance(n, gen_kernel.Loop)][li].trip = t
                yield k
                break
        if loops[li].form != "serial" or loops[li].offset:
            k = copy.deepcopy(kernel)
            lp = [n for n in gen_kernel.walk(k.body) if isinstance(n, gen_kernel.Loop)][li]
            lp.form, lp.offset = "serial", False
            yield k
    for key in list(kernel.versions_ann):
        k = copy.deepcopy(kernel)
        del k.versions_ann[key]
        yield k
    if kernel.unlimit:
        k = copy.deepcopy(kernel)
        k.unlimit = []
        yield k
    if kernel.grid > 1:
        k = copy.deepcopy(kernel)
        k.grid = 1
        yield k


def minimise(tilesched, kernel, target_sig, modes, workdir, timeout, budget_s):
    """Greedy delta debugging: accept any valid smaller kernel that keeps the failure
    class `target_sig` (a part of `fingerprint`)."""
    start = time.time()
    path = os.path.join(workdir, f"min_{kernel.seed}.py")
    best = kernel
    tries = 0
    pos = 0  # candidates before `pos` were just rejected: start after them, wrap around once
    changed = True
    while changed and time.time() - start < budget_s:
        changed = False
        cands = [c for c in candidates(best) if gen_kernel.check_valid(c)]
        order = list(range(min(pos, len(cands)), len(cands))) + list(range(0, min(pos, len(cands))))
        for i in order:
            if time.time() - start > budget_s:
                break
            tries += 1
            outs = check_kernel(tilesched, cands[i], path, modes, workdir, timeout)
            parts = set(fingerprint(outs).split("; ")) if signature(outs) else set()
            if target_sig in parts:
                best, pos, changed = cands[i], i, True
                break
    return best, tries


# ----------------------------------------------------------------------------


def check_files(a):
    """Runs saved kernel files (a failure's kernel, a regression) in every mode."""
    work = tempfile.mkdtemp(prefix="tilesched-random-files-")
    modes = detect_modes(a.tilesched, work) if a.modes == "detect" else a.modes.split(",")
    bad_files = 0
    for src in a.kernel:
        text = open(src).read()
        expect = "either" if "# expect_double: either" in text else "pass"
        path = os.path.join(work, os.path.basename(src))
        shutil.copy(src, path)
        outs = [run_mode(a.tilesched, path, m, work, expect, a.timeout) for m in modes]
        passed = [o.mode for o in outs if o.kind == "pass"]
        base = os.path.basename(path)[:-3]
        for m in passed[1:]:
            same, why = outputs_equal(work, base, passed[0], m)
            if not same:
                outs.append(Outcome(f"{passed[0]}/{m}", "fail:cross-mode", why))
        bad = [o for o in outs if not o.ok]
        print(("FAIL " if bad else "ok   ") + src + ": " + ", ".join(f"{o.mode} {o.kind}" for o in outs))
        for o in bad:
            print(f"  [{o.mode}] {o.kind}: " + o.detail.replace("\n", "\n      "))
        bad_files += bool(bad)
    shutil.rmtree(work, ignore_errors=True)
    return 1 if bad_files else 0


def parse_seeds(text):
    if ":" in text:
        a, b = text.split(":")
        return list(range(int(a), int(b)))
    return [int(x) for x in text.split(",")]


def bump(d, key, n=1):
    d[key] = d.get(key, 0) + n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tilesched", required=True)
    ap.add_argument("--seeds", default="0:100", help="A:B (half-open) or a comma list")
    ap.add_argument("--modes", default="detect", help="comma list, or 'detect' (every mode the binary runs)")
    ap.add_argument("--profile", default="full", choices=["full", "ci", "vector"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=None, help="where failing kernels go (default: a temp dir)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per tilesched run")
    ap.add_argument("--no-minimise", action="store_true")
    ap.add_argument("--minimise-budget", type=int, default=120, help="seconds per failing seed")
    ap.add_argument("--max-minimise", type=int, default=10, help="failing seeds to minimise")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--kernel", nargs="+", help="check these kernel files (e.g. tests/random/regress/*.py) instead")
    a = ap.parse_args()
    if a.kernel:
        return check_files(a)

    out = a.out or tempfile.mkdtemp(prefix="tilesched-random-")
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="work-", dir=out)
    modes = detect_modes(a.tilesched, work) if a.modes == "detect" else a.modes.split(",")
    print(f"random kernels: seeds {a.seeds}, profile {a.profile}, modes {','.join(modes)}, output {out}")
    skipped = [m for m in ALL_MODES if m not in modes]
    if skipped:
        print(f"  not run (the binary does not run them): {', '.join(skipped)}")

    seeds = parse_seeds(a.seeds)
    coverage = {}
    failures = []
    t0 = time.time()

    def one(seed):
        k = gen_kernel.generate(seed, a.profile)
        path = os.path.join(work, f"seed_{seed}.py")
        outs = check_kernel(a.tilesched, k, path, modes, work, a.timeout)
        return seed, k, outs

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for seed, k, outs in pool.map(one, seeds):
            for key, n in k.coverage.items():
                bump(coverage, key, n)
            for o in outs:
                bump(coverage, f"result.{o.mode}.{o.kind}")
                sim_report = o.report or {}
                for kr in sim_report.get("kernels", []):
                    for b in kr.get("buffers", []):
                        if b.get("scope") == "global":
                            continue
                        if b.get("manual"):
                            bump(coverage, f"lowered.{o.mode}.manual_ring={b.get('versions')}")
                        elif (b.get("versions") or 1) > 1:
                            bump(coverage, f"lowered.{o.mode}.versions={b['versions']}.{b.get('mode')}")
                        if b.get("guarded_epoch"):
                            bump(coverage, f"lowered.{o.mode}.guarded_epoch")
                    for hard, n in ((kr.get("sync") or {}).get("event_ids") or {}).items():
                        bump(coverage, f"lowered.{o.mode}.event_ids>=4" if n >= 4 else "lowered.event_ids<4")
            bad = [o for o in outs if not o.ok]
            if bad:
                failures.append((seed, k, outs))
                path = os.path.join(out, f"fail_seed{seed}.py")
                with open(path, "w") as f:
                    f.write(k.render())
                print(f"FAIL seed {seed} ({path}):")
                for o in bad:
                    print(f"  [{o.mode}] {o.kind}: " + o.detail.replace("\n", "\n      "))
            elif not a.quiet:
                print(f"ok   seed {seed}: " + ", ".join(f"{o.mode} {o.kind}" for o in outs))

    elapsed = time.time() - t0
    classes = {}
    for seed, k, outs in failures:
        classes.setdefault(fingerprint(outs), []).append(seed)
    if classes:
        print("\nfailure classes (the first seed of each is minimised first):")
        for fp, seeds_of in sorted(classes.items(), key=lambda x: -len(x[1])):
            print(f"  {len(seeds_of):4d}  {fp}: seeds {','.join(map(str, seeds_of[:12]))}{' ...' if len(seeds_of) > 12 else ''}")
    firsts = [s[0] for s in classes.values()]
    order = [f for f in failures if f[0] in firsts] + [f for f in failures if f[0] not in firsts]
    if failures and not a.no_minimise:
        print(f"\nminimising {min(len(failures), a.max_minimise)} of {len(failures)} failing seeds")
        for seed, k, outs in order[: a.max_minimise]:
            sig = signature(outs)
            fail_modes = sorted({m for mo, _ in sig for m in mo.split("/")})
            # keep the failure's class (the same race pipes), not just "some race"
            target = fingerprint(outs).split("; ")[0]
            best, tries = minimise(a.tilesched, k, target, fail_modes, work, a.timeout, a.minimise_budget)
            path = os.path.join(out, f"fail_seed{seed}.min.py")
            with open(path, "w") as f:
                f.write(best.render())
            final = check_kernel(a.tilesched, best, os.path.join(work, f"final_{seed}.py"), fail_modes, work,
                                 a.timeout)
            print(f"seed {seed}: minimised in {tries} runs -> {path}")
            for o in final:
                if not o.ok:
                    print(f"  [{o.mode}] {o.kind}: " + o.detail.replace("\n", "\n      "))

    print(f"\ncoverage over {len(seeds)} kernels ({elapsed:.1f} s):")
    groups = {}
    for key in sorted(coverage):
        groups.setdefault(key.split(".")[0].split("=")[0], []).append(key)
    for g in sorted(groups):
        print(f"  {g:14s} " + ", ".join(f"{k[len(g) + 1:] if k.startswith(g + '.') else k}: {coverage[k]}"
                                         for k in groups[g]))
    shutil.rmtree(work, ignore_errors=True)
    n_fail = len(failures)
    print(f"\n{len(seeds) - n_fail} of {len(seeds)} kernels passed in every mode ({','.join(modes)})"
          + (f"; {n_fail} failed, kernels in {out}" if n_fail else ""))
    if n_fail:
        print("failing seeds: " + ",".join(str(s) for s, _, _ in failures))
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
