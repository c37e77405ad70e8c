"""Seeded generator of valid TileLang-Ascend kernel files (issue 11).

`generate(seed, profile)` returns a Kernel: a tree of statements that renders to
a .py kernel file a person can read and rerun with `tilesched run FILE`.

Validity is kept by construction and re-checked by `check_valid` (the minimiser
deletes statements and keeps only valid candidates):

- every read of an on-chip storage sees data written earlier in the sequential
  run (on every path): a buffer is "defined" after an unguarded full write in
  the same scope, after a fill before a loop, or after a loop with a constant
  trip count >= 1 whose body wrote it unguarded. Guarded writes define the
  buffer only inside their `if` (or after an if/else that writes it in both
  arms). So the meaning of the kernel never depends on how many versions a
  buffer has: any difference between `serial`, `none` and `double` is a bug.
- every write covers the whole buffer (or exactly the ring slot read later),
  because the write-first heuristic (SPEC §2.4) is optimistic on purpose.
- GM tiles are indexed by the block index and the flattened iteration of the
  enclosing loops, so blocks never share a GM byte and indices stay in bounds.
- each scope's bytes fit its capacity with one version; `double` is expected to
  fit unless the profile makes buffers large on purpose (`expect_double`).

Run as a script: `gen_kernel.py SEED [--profile P] [-o FILE]` prints or writes one
kernel.
"""

import random
import sys

UB_CAP = 253952
UB_CAP_SIMT = 221184
L1_CAP = 524288
L0AB_CAP = 65536
L0C_CAP = 262144

DTYPE_BYTES = {"float32": 4, "float16": 2}
# targets/ascend950.json's alignment per scope (a storage takes a multiple of it)
ALIGN = {"shared": 32, "shared.l1": 32, "shared.l0a": 512, "shared.l0b": 512, "shared.l0c": 64}


# ----------------------------------------------------------------------------
# The tree


class Stmt:
    """One statement (may render as several lines, e.g. a T.Parallel nest)."""

    def __init__(self, kind, lines, reads=(), writes=(), uses=()):
        self.kind = kind  # coverage key
        self.lines = list(lines)
        self.reads = set(reads)  # storages read (must be defined)
        self.writes = set(writes)  # storages fully written
        self.uses = set(uses) | self.reads | self.writes  # buffer names used (allocs, views)

    def render(self, out, ind, ctx):
        for line in self.lines:
            out.append("    " * ind + line.format(**ctx.fmt()))


class Loop:
    def __init__(self, form, var, trip, stages, offset, body):
        self.form = form  # pipelined | serial | range | persistent
        self.var = var
        self.trip = trip
        self.stages = stages
        self.offset = offset
        self.body = body

    def header(self):
        n = self.trip
        if self.form == "range":
            return f"for {self.var} in range({n}):"
        if self.form == "serial":
            return f"for {self.var} in T.serial({n}):"
        if self.form == "persistent":
            return f"with T.Persistent({n}, num_stages={self.stages}) as {self.var}:"
        ann = ', annotations={"enable_offset": True}' if self.offset else ""
        return f"for {self.var} in T.Pipelined({n}, num_stages={self.stages}{ann}):"

    def render(self, out, ind, ctx):
        out.append("    " * ind + self.header())
        ctx.push(self)
        render_body(self.body, out, ind + 1, ctx)
        ctx.pop()


class If:
    def __init__(self, cond, body, orelse=None):
        self.cond = cond  # a format string over the loop variable, e.g. "{v} % 2 == 0"
        self.body = body
        self.orelse = orelse

    def render(self, out, ind, ctx):
        out.append("    " * ind + "if " + self.cond.format(**ctx.fmt()) + ":")
        render_body(self.body, out, ind + 1, ctx)
        if self.orelse is not None:
            out.append("    " * ind + "else:")
            render_body(self.orelse, out, ind + 1, ctx)


def render_body(body, out, ind, ctx):
    if not body:
        out.append("    " * ind + "pass")
    for node in body:
        node.render(out, ind, ctx)


class RenderCtx:
    """Loop nest while rendering: {t} is the flattened tile index, {v} the innermost var."""

    def __init__(self):
        self.nest = []

    def push(self, loop):
        self.nest.append(loop)

    def pop(self):
        self.nest.pop()

    def fmt(self):
        if not self.nest:
            return {"t": "0", "v": "0", "vv": "0"}
        expr = ""
        for loop in self.nest:
            n = max(loop.trip, 1)
            expr = loop.var if not expr else f"({expr}) * {n} + {loop.var}"
        v = self.nest[-1].var
        return {"t": expr, "v": v, "vv": v}


def walk(body):
    for node in body:
        yield node
        if isinstance(node, Loop):
            yield from walk(node.body)
        elif isinstance(node, If):
            yield from walk(node.body)
            if node.orelse is not None:
                yield from walk(node.orelse)


def tiles_needed(body, outer=1):
    n = outer
    for node in body:
        if isinstance(node, Loop):
            n = max(n, tiles_needed(node.body, outer * max(node.trip, 1)))
        elif isinstance(node, If):
            n = max(n, tiles_needed(node.body, outer))
            if node.orelse is not None:
                n = max(n, tiles_needed(node.orelse, outer))
    return n


# ----------------------------------------------------------------------------
# Validity (shared by the generator's bookkeeping and the minimiser)


def defined_after(body, defined, ok):
    """Walks `body` with `defined` on entry; returns the set defined after it.
    Sets ok[0] = False on a read of an undefined storage."""
    d = set(defined)
    for node in body:
        if isinstance(node, Stmt):
            if not node.reads <= d:
                ok[0] = False
            d |= node.writes
        elif isinstance(node, Loop):
            inner = defined_after(node.body, d, ok)
            if node.trip >= 1:
                d = inner
        elif isinstance(node, If):
            a = defined_after(node.body, d, ok)
            if node.orelse is not None:
                b = defined_after(node.orelse, d, ok)
                d = a & b
    return d


def check_valid(kernel):
    ok = [True]
    defined_after(kernel.body, set(), ok)
    return ok[0]


# ----------------------------------------------------------------------------
# The kernel


class Buf:
    def __init__(self, name, scope, shape, dtype, alloc):
        self.name = name
        self.scope = scope  # shared | shared.l1 | shared.l0a | shared.l0b | shared.l0c
        self.shape = shape
        self.dtype = dtype
        self.alloc = alloc  # alloc call name
        self.storage = name  # views point at their storage
        self.view_of = None

    @property
    def bytes(self):
        n = 1
        for s in self.shape:
            n *= s
        return n * DTYPE_BYTES[self.dtype]


class Kernel:
    def __init__(self, seed):
        self.seed = seed
        self.grid = 1
        self.R = 4
        self.C = 32
        self.dtype = "float32"
        self.M = self.N = self.K = 16
        self.bufs = {}  # name -> Buf (storages and views)
        self.views = []
        self.manual = {}  # storage -> (ring size, dict form)
        self.versions_ann = {}  # buffer name -> annotation value (text)
        self.unlimit = []
        self.body = []
        self.expect_double = "pass"  # pass | either
        self.profile = "full"
        self.simt = False
        self.coverage = {}
        # scope -> capacity in bytes of a target derived from ascend950 for this
        # kernel (`# target-capacity:` line; run_random.py writes the JSON and
        # passes --target), or empty for the default target
        self.capacity = {}

    # -- rendering

    def used(self):
        names = set()
        for node in walk(self.body):
            if isinstance(node, Stmt):
                names |= node.uses
        # a view keeps its storage alive
        for name in list(names):
            b = self.bufs.get(name)
            if b is not None and b.view_of:
                names.add(b.view_of)
        return names

    def gm_tensors(self):
        used = set()
        for node in walk(self.body):
            if isinstance(node, Stmt):
                for line in node.lines:
                    for g in ("X0", "X1", "Y0", "Y1", "A", "Bm", "Cg"):
                        if g + "[" in line:
                            used.add(g)
        return used

    def render(self):
        nt = tiles_needed(self.body)
        used = self.used()
        gms = self.gm_tensors()
        R, C, M, N, K = self.R, self.C, self.M, self.N, self.K
        shapes = {
            "X0": ((self.grid, nt, R, C), self.dtype),
            "X1": ((self.grid, nt, R, C), self.dtype),
            "Y0": ((self.grid, nt, R, C), self.dtype),
            "Y1": ((self.grid, nt, R, C), self.dtype),
            "A": ((self.grid, nt, M, K), "float16"),
            "Bm": ((self.grid, nt, K, N), "float16"),
            "Cg": ((self.grid, nt, M, N), "float32"),
        }
        params = [g for g in ("X0", "X1", "A", "Bm", "Y0", "Y1", "Cg") if g in gms]
        if not params:  # a kernel needs a tensor to compare
            params = ["Y0"]
        out = []
        out.append(f"# Random kernel, seed {self.seed}, profile {self.profile} (tests/random/gen_kernel.py).")
        out.append(f"#   tilesched run THIS_FILE --schedule none|double|serial")
        out.append(f"# expect_double: {self.expect_double}")
        if self.capacity:
            import json

            out.append("# target-capacity: " + json.dumps(self.capacity, sort_keys=True))
        out.append("import tilelang.language as T")
        out.append("")
        out.append("")
        out.append(f"def random_kernel_{self.seed}():")
        out.append("    @T.prim_func")
        out.append("    def main(")
        for g in params:
            shape, dt = shapes[g]
            out.append(f"        {g}: T.Tensor({shape}, \"{dt}\"),")
        out.append("    ):")
        # Cube and UB buffers together: a mixed kernel, launched with one
        # vector core (sids=1) as tilesched simulates it (a plain T.Kernel
        # would run its vector tasks on both AIVs; docs/language.md).
        scopes_used = {self.bufs[n].scope for n in used if n in self.bufs}
        cube_scopes = {"shared.l1", "shared.l0a", "shared.l0b", "shared.l0c"}
        if scopes_used & cube_scopes and "shared" in scopes_used:
            self.coverage["launch.mixed_kernel_sids1"] = self.coverage.get("launch.mixed_kernel_sids1", 0) + 1
            out.append(f"        with T.MixedKernel({self.grid}, sids=1, is_npu=True) as (bx, _sid):")
        else:
            out.append(f"        with T.Kernel({self.grid}, is_npu=True) as bx:")
        ind = 3
        pre = []
        for b in self.bufs.values():
            if b.view_of or b.name not in used:
                continue
            pre.append(f"{b.name} = T.{b.alloc}({tuple(b.shape)}, \"{b.dtype}\")")
        for b in self.views:
            if b.name in used:
                pre.append(f"{b.name} = T.view({b.view_of}, {tuple(b.shape)})")
        man = [(s, n, d) for s, (n, d) in self.manual.items() if s in used]
        if man:
            items = ", ".join(f"{{{s}: {n}}}" if d else s for s, n, d in man)
            pre.append(f"T.annotate_manual_multi_buffer({items})")
        ann = [(b, v) for b, v in self.versions_ann.items() if b in used]
        if ann:
            pre.append("T.annotate_buffer_versions({" + ", ".join(f"{b}: {v}" for b, v in ann) + "})")
        if self.unlimit:
            pre.append("T.annotate_unlimit_memory(" + ", ".join(f'"{s}"' for s in self.unlimit) + ")")
        for line in pre:
            out.append("    " * ind + line)
        out.append("")
        render_body(self.body, out, ind, RenderCtx())
        out.append("")
        out.append("    return main")
        return "\n".join(out) + "\n"

    def clone(self):
        import copy

        return copy.deepcopy(self)


# ----------------------------------------------------------------------------
# The generator


class Gen:
    def __init__(self, seed, profile):
        self.rng = random.Random(seed)
        self.k = Kernel(seed)
        self.k.profile = profile
        self.profile = profile
        self.var_names = iter(["i", "j", "l", "m", "n", "p", "q", "s", "u", "w"] + [f"v{x}" for x in range(50)])
        self.cov = self.k.coverage

    def count(self, key, n=1):
        self.cov[key] = self.cov.get(key, 0) + n

    def chance(self, p):
        return self.rng.random() < p

    # -- buffers

    def setup(self):
        rng, k = self.rng, self.k
        k.grid = rng.choice([1, 1, 2, 3])
        k.dtype = rng.choice(["float32", "float32", "float16"])
        k.R = rng.choice([1, 2, 4, 8])
        k.C = rng.choice([16, 32, 64, 128])
        tight = self.profile != "ci" and self.chance(0.08)
        if tight:
            # big tiles: one version of everything fits UB, two may not
            # four 48 KiB tiles: 192 KiB of the 248 KiB UB; two versions of any
            # two of them no longer fit (the ring and the reduction buffer are off)
            k.R, k.C = 8, 1536 if k.dtype == "float32" else 3072
            self.count("profile.tight_ub")
        nub = 4 if tight else rng.randint(2, 6)
        for x in range(nub):
            self.add_buf(f"u{x}", "shared", (k.R, k.C), k.dtype, "alloc_ub")
        self.ubs = [f"u{x}" for x in range(nub)]
        self.all_ubs = list(self.ubs)
        self.red = None
        if not tight and self.chance(0.5):
            self.add_buf("r0", "shared", (k.R,), k.dtype, "alloc_ub")
            self.red = "r0"
        self.ring = None
        if self.chance(0.35) and not tight:
            n = rng.choice([1, 2, 2, 3, 4])
            self.add_buf("ring", "shared", (n, k.R, k.C), k.dtype, "alloc_ub")
            dict_form = n == 1 or self.chance(0.4)
            k.manual["ring"] = (n, dict_form)
            self.ring = ("ring", n)
            self.count(f"manual_ring.N={n}")
            self.count("manual_ring.dict_form" if dict_form else "manual_ring.bare")
        self.cube = self.profile != "vector" and self.chance(0.35)
        if self.cube:
            k.M = rng.choice([16, 32])
            k.N = rng.choice([16, 32])
            k.K = rng.choice([16, 32])
            self.add_buf("a_l1", "shared.l1", (k.M, k.K), "float16", "alloc_l1")
            self.add_buf("b_l1", "shared.l1", (k.K, k.N), "float16", "alloc_l1")
            self.add_buf("a_l0", "shared.l0a", (k.M, k.K), "float16", "alloc_l0a")
            self.add_buf("b_l0", "shared.l0b", (k.K, k.N), "float16", "alloc_l0b")
            self.add_buf("c_l0c", "shared.l0c", (k.M, k.N), "float32", "alloc_l0c")
            self.add_buf("c_ub", "shared", (k.M, k.N), "float32", "alloc_ub")
            self.add_buf("h_ub", "shared", (k.M, k.K), "float16", "alloc_ub")
        # aliases: flat views of UB tiles (several per storage sometimes)
        self.flat_views = {}
        for u in self.ubs:
            if self.chance(0.3):
                nviews = 2 if self.chance(0.3) else 1
                for y in range(nviews):
                    name = f"{u}_f{y}"
                    b = Buf(name, "shared", (k.R * k.C,), k.dtype, None)
                    b.view_of = u
                    b.storage = u
                    k.bufs[name] = b
                    k.views.append(b)
                    self.flat_views.setdefault(u, []).append(name)
                self.count("alias.views_per_storage=%d" % nviews)
        if tight:
            k.expect_double = "either"
        self.tight = tight

    def add_buf(self, name, scope, shape, dtype, alloc):
        self.k.bufs[name] = Buf(name, scope, shape, dtype, alloc)

    # -- annotations (after the body, on buffers that ended up used)

    def annotate(self):
        rng, k = self.rng, self.k
        loops_of = {}  # storage -> set of innermost loop ids that access it
        self._loops_using(k.body, None, loops_of)
        cands = [b for b in self.all_ubs + (["a_l1", "b_l1", "c_ub"] if self.cube else [])
                 if b in k.used()]
        for b in cands:
            if not self.chance(0.3):
                continue
            one_loop = len(loops_of.get(b, ())) <= 1
            choices = ["1", "2", "3", "(1, \"auto\")", "\"counter\"", "\"auto\"", "(2, \"counter\")", "(3, \"auto\")"]
            if one_loop:
                choices += ["\"iteration\"", "(2, \"iteration\")"]
            v = rng.choice(choices)
            target = b
            # a count given through one alias and a mode through another combine
            if b in self.flat_views and self.chance(0.4):
                view = self.flat_views[b][0]
                if v.startswith("\""):
                    target = view
                elif v in ("2", "3") and self.chance(0.5):
                    # SPEC 2.1: a count through one alias and a mode through another
                    # combine (regress/alias_count_and_mode_combine.py)
                    k.versions_ann[view] = "\"counter\""
                    self.count("annotation.count_and_mode_via_alias")
            k.versions_ann[target] = v
            key = "annotation." + ("opt_out" if v == "1" else "fixed_count" if v.isdigit() else
                                   "mode" if v.startswith("\"") else "count_mode")
            self.count(key)
        if self.chance(0.2):
            scopes = ["shared"] + (["shared.l1", "shared.l0c"] if self.cube else [])
            k.unlimit = sorted(set(rng.sample(scopes, rng.randint(1, len(scopes)))))
            self.count("annotation.unlimit_memory")

    def _loops_using(self, body, loop, acc):
        for node in body:
            if isinstance(node, Stmt):
                for u in node.uses:
                    b = self.k.bufs.get(u)
                    s = b.storage if b else u
                    acc.setdefault(s, set()).add(id(loop))
            elif isinstance(node, Loop):
                self._loops_using(node.body, node, acc)
            elif isinstance(node, If):
                self._loops_using(node.body, loop, acc)
                if node.orelse:
                    self._loops_using(node.orelse, loop, acc)

    # -- statements

    def expr_of(self, srcs, r="r", c="c"):
        ops = [lambda a, b: f"{a} + {b}", lambda a, b: f"{a} - {b}", lambda a, b: f"{a} * {b}",
               lambda a, b: f"T.max({a}, {b})", lambda a, b: f"T.min({a}, {b})"]
        terms = [f"{s}[{r}, {c}]" for s in srcs]
        e = terms[0]
        for t in terms[1:]:
            e = self.rng.choice(ops)(e, t)
        tail = self.rng.choice([" * 0.5", " + 1.0", "", " - 0.25", ""])
        if self.chance(0.1):
            e = f"T.abs({e})"
        return e + tail if tail else e

    def gen_stmt(self, defined, in_loop):
        """One statement that reads only defined storages; returns Stmt or None."""
        rng, k = self.rng, self.k
        d = [u for u in self.ubs if u in defined]
        options = ["load"] * 4 + ["fill"]
        if d:
            options += ["store"] * 3 + ["ew"] * 4 + ["vcopy"]
            if self.red:
                options += ["reduce"] * 2
            if in_loop:
                options += ["gm_roundtrip"]
            options += ["scalar"]
            if self.profile == "full":
                # a fill whose value is a UB element, read by the scalar unit at
                # issue (sometimes of the buffer it fills); full profile only, so
                # the ci profile's kernels stay the same
                options += ["fill_value"]
        if self.red and self.red in defined and d:
            options += ["bcast"] * 2
        if self.cube:
            options += ["cube"] * 3
        if self.ring and in_loop:
            options += ["ring"] * 3
        kind = rng.choice(options)
        fresh = [u for u in self.ubs if u not in defined] or self.ubs
        pick_dst = lambda: rng.choice(fresh if self.chance(0.8) else self.ubs)
        x = rng.choice(["X0", "X1"])
        y = rng.choice(["Y0", "Y1"])
        self.count("stmt." + kind)
        if kind == "load":
            dst = pick_dst()
            self.count("path.GM->UB")
            return Stmt(kind, [f"T.copy({x}[bx, {{t}}, :, :], {dst})"], writes=[dst])
        if kind == "fill":
            dst = pick_dst()
            line = f"T.clear({dst})" if self.chance(0.3) else f"T.fill({dst}, {rng.choice(['0.5', '-1.25', '2.0'])})"
            return Stmt(kind, [line], writes=[dst])
        if kind == "fill_value":
            src = rng.choice(d)
            dst = pick_dst() if self.chance(0.7) else src
            line = f"T.fill({dst}, {src}[{rng.randrange(k.R)}, {rng.randrange(k.C)}])"
            return Stmt("fill", [line], reads=[src], writes=[dst])
        if kind == "store":
            src = rng.choice(d)
            self.count("path.UB->GM")
            if src in self.flat_views and self.chance(0.3):
                # a store through the alias, as a flat row of the GM tile
                view = rng.choice(self.flat_views[src])
                self.count("alias.store_via_view")
                return Stmt(kind, [f"T.copy({view}, {y}[bx, {{t}}, :, :])"], reads=[src], uses=[view])
            return Stmt(kind, [f"T.copy({src}, {y}[bx, {{t}}, :, :])"], reads=[src])
        if kind == "gm_roundtrip":
            src = rng.choice(d)
            dst = pick_dst()
            self.count("path.UB->GM->UB")
            return Stmt(kind, [f"T.copy({src}, {y}[bx, {{t}}, :, :])", f"T.copy({y}[bx, {{t}}, :, :], {dst})"],
                        reads=[src], writes=[dst])
        if kind == "ew":
            srcs = rng.sample(d, min(len(d), rng.randint(1, 3)))
            dst = pick_dst() if self.chance(0.8) else rng.choice(srcs)
            views = [u for u in srcs + [dst] if u in self.flat_views]
            if views and self.chance(0.5) and all(u in self.flat_views for u in srcs + [dst]):
                vmap = {u: rng.choice(self.flat_views[u]) for u in srcs + [dst]}
                terms = [f"{vmap[s]}[e]" for s in srcs]
                e = terms[0]
                for t in terms[1:]:
                    e = f"{e} + {t}"
                self.count("alias.parallel_via_views")
                return Stmt("ew", [f"for e in T.Parallel({k.R * k.C}):", f"    {vmap[dst]}[e] = {e} * 0.5"],
                            reads=srcs, writes=[dst], uses=vmap.values())
            return Stmt(kind, [f"for r, c in T.Parallel({k.R}, {k.C}):", f"    {dst}[r, c] = {self.expr_of(srcs)}"],
                        reads=srcs, writes=[dst])
        if kind == "vcopy":
            src = rng.choice(d)
            dst = rng.choice([u for u in self.ubs if u != src])
            self.count("path.UB->UB")
            return Stmt(kind, [f"T.copy({src}, {dst})"], reads=[src], writes=[dst])
        if kind == "reduce":
            src = rng.choice(d)
            op = rng.choice(["reduce_sum", "reduce_max", "reduce_min", "reduce_abssum", "reduce_absmax"])
            if self.red in defined and self.chance(0.3):
                self.count("reduce.clear_false")
                return Stmt(kind, [f"T.{op}({src}, {self.red}, dim=-1, clear=False)"], reads=[src, self.red],
                            writes=[self.red])
            return Stmt(kind, [f"T.{op}({src}, {self.red}, dim=-1)"], reads=[src], writes=[self.red])
        if kind == "bcast":
            src = rng.choice(d)
            dst = pick_dst()
            return Stmt(kind, [f"for r, c in T.Parallel({k.R}, {k.C}):", f"    {dst}[r, c] = {src}[r, c] - {self.red}[r]"],
                        reads=[src, self.red], writes=[dst])
        if kind == "scalar":
            src = rng.choice(d)
            return Stmt(kind, [f"{src}[0, 0] = {src}[0, 0] * 2.0 + 1.0"], reads=[src], writes=[src])
        if kind == "ring":
            return self.ring_stmts(defined)
        if kind == "cube":
            if self.chance(0.4):
                return self.cube_chain(defined)
            return self.cube_stmt(defined)
        raise AssertionError(kind)

    def ring_stmts(self, defined):
        """Hand-indexed manual ring: load slot v % N, read it (and the previous slot)."""
        name, n = self.ring
        k = self.k
        x = self.rng.choice(["X0", "X1"])
        if name not in defined or self.chance(0.5):
            self.count("ring.load")
            # writing one slot defines nothing of the whole ring: reads only go
            # through slots proven written (see `ring_read` below)
            return Stmt("ring_load", [f"T.copy({x}[bx, {{t}}, :, :], {name}[{{v}} % {n}, :, :])"],
                        uses=[name])
        dst = self.rng.choice(self.ubs)
        prev = f"{name}[({{v}} + {n - 1}) % {n}, r, c]"
        cur = f"{name}[{{v}} % {n}, r, c]"
        self.count("ring.read_prev_slot")
        return Stmt("ring_read", [f"for r, c in T.Parallel({k.R}, {k.C}):", f"    {dst}[r, c] = {cur} + {prev} * 0.5"],
                    reads=[name], writes=[dst])

    def cube_chain(self, defined):
        """A whole cube path in program order: GM (or UB) -> L1 -> [L0A/L0B] -> gemm -> L0C -> UB/GM."""
        rng = self.rng
        self.count("cube.chain")
        out = []
        if self.chance(0.3):
            out.append(Stmt("h_load", ["T.copy(A[bx, {t}, :, :], h_ub)"], writes=["h_ub"]))
            out.append(Stmt("ub_l1", ["T.copy(h_ub, a_l1)"], reads=["h_ub"], writes=["a_l1"]))
            self.count("path.UB->L1")
        else:
            out.append(Stmt("ld_a", ["T.copy(A[bx, {t}, :, :], a_l1)"], writes=["a_l1"]))
        out.append(Stmt("ld_b", ["T.copy(Bm[bx, {t}, :, :], b_l1)"], writes=["b_l1"]))
        self.count("path.GM->L1")
        if self.chance(0.5):
            out.append(Stmt("l0a", ["T.copy(a_l1, a_l0)"], reads=["a_l1"], writes=["a_l0"]))
            out.append(Stmt("l0b", ["T.copy(b_l1, b_l0)"], reads=["b_l1"], writes=["b_l0"]))
            self.count("path.L1->L0A")
            self.count("path.L1->L0B")
            a, b = "a_l0", "b_l0"
        else:
            a, b = "a_l1", "b_l1"
        self.count("cube.gemm_" + a[2:])
        if "c_l0c" in defined and self.chance(0.4):
            self.count("gemm.accumulate")
            out.append(Stmt("gemm", [f"T.gemm({a}, {b}, c_l0c)"], reads=[a, b, "c_l0c"], writes=["c_l0c"]))
        else:
            out.append(Stmt("gemm", [f"T.gemm({a}, {b}, c_l0c, clear_accum=True)"], reads=[a, b], writes=["c_l0c"]))
        if self.chance(0.5):
            out.append(Stmt("fix_gm", ["T.copy(c_l0c, Cg[bx, {t}, :, :])"], reads=["c_l0c"]))
            self.count("path.L0C->GM")
        else:
            out.append(Stmt("fix_ub", ["T.copy(c_l0c, c_ub)"], reads=["c_l0c"], writes=["c_ub"]))
            out.append(Stmt("c_store", ["T.copy(c_ub, Cg[bx, {t}, :, :])"], reads=["c_ub"]))
            self.count("path.L0C->UB")
        return out

    def cube_stmt(self, defined):
        k, rng = self.k, self.rng
        have = lambda *b: all(x in defined for x in b)
        opts = ["ld_a", "ld_b"]
        if have("a_l1"):
            opts += ["l0a"]
        if have("b_l1"):
            opts += ["l0b"]
        if have("a_l1", "b_l1"):
            opts += ["gemm_l1"] * 2
        if have("a_l0", "b_l0"):
            opts += ["gemm_l0"] * 2
        if have("c_l0c"):
            opts += ["fix_gm", "fix_ub"]
        if have("c_ub"):
            opts += ["c_store"]
        opts += ["h_load"]
        if have("h_ub"):
            opts += ["ub_l1"]
        op = rng.choice(opts)
        self.count("cube." + op)
        if op == "ld_a":
            self.count("path.GM->L1")
            return Stmt(op, ["T.copy(A[bx, {t}, :, :], a_l1)"], writes=["a_l1"])
        if op == "ld_b":
            self.count("path.GM->L1")
            return Stmt(op, ["T.copy(Bm[bx, {t}, :, :], b_l1)"], writes=["b_l1"])
        if op == "h_load":
            return Stmt(op, ["T.copy(A[bx, {t}, :, :], h_ub)"], writes=["h_ub"])
        if op == "ub_l1":
            self.count("path.UB->L1")
            return Stmt(op, ["T.copy(h_ub, a_l1)"], reads=["h_ub"], writes=["a_l1"])
        if op == "l0a":
            self.count("path.L1->L0A")
            return Stmt(op, ["T.copy(a_l1, a_l0)"], reads=["a_l1"], writes=["a_l0"])
        if op == "l0b":
            self.count("path.L1->L0B")
            return Stmt(op, ["T.copy(b_l1, b_l0)"], reads=["b_l1"], writes=["b_l0"])
        if op in ("gemm_l1", "gemm_l0"):
            a, b = ("a_l1", "b_l1") if op == "gemm_l1" else ("a_l0", "b_l0")
            if have("c_l0c") and self.chance(0.5):
                self.count("gemm.accumulate")
                return Stmt(op, [f"T.gemm({a}, {b}, c_l0c)"], reads=[a, b, "c_l0c"], writes=["c_l0c"])
            return Stmt(op, [f"T.gemm({a}, {b}, c_l0c, clear_accum=True)"], reads=[a, b], writes=["c_l0c"])
        if op == "fix_gm":
            self.count("path.L0C->GM")
            return Stmt(op, ["T.copy(c_l0c, Cg[bx, {t}, :, :])"], reads=["c_l0c"])
        if op == "fix_ub":
            self.count("path.L0C->UB")
            return Stmt(op, ["T.copy(c_l0c, c_ub)"], reads=["c_l0c"], writes=["c_ub"])
        if op == "c_store":
            self.count("path.UB->GM")
            return Stmt(op, ["T.copy(c_ub, Cg[bx, {t}, :, :])"], reads=["c_ub"])
        raise AssertionError(op)

    # -- bodies and loops

    def trip(self):
        t = self.rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 8])
        if self.tight:
            t = min(t, 3)
        self.count("trip." + ("0" if t == 0 else "1" if t == 1 else "2-3" if t <= 3 else "4+"))
        return t

    def gen_loop(self, defined, depth):
        rng = self.rng
        form = rng.choice(["pipelined", "pipelined", "pipelined", "serial", "range", "persistent"])
        stages = rng.choice([1, 2, 2, 3, 4])
        offset = form == "pipelined" and self.chance(0.25)
        var = next(self.var_names)
        trip = self.trip()
        self.count("loop." + form)
        self.count(f"num_stages={stages}" if form in ("pipelined", "persistent") else "num_stages=none")
        if offset:
            self.count("enable_offset")
        if depth > 0:
            self.count("loop.nested")
        loop = Loop(form, var, trip, stages, offset, [])
        loop.body = self.gen_body(defined, depth + 1, True, loop)
        return loop

    def gen_body(self, defined, depth, in_loop, loop=None):
        rng = self.rng
        body = []
        d = set(defined)
        n = rng.randint(1, 5) if depth > 1 else rng.randint(2, 6)
        for _ in range(n):
            r = rng.random()
            if in_loop and depth < 3 and r < 0.1:
                node = self.gen_loop(d, depth)
                ok = [True]
                inner = defined_after(node.body, d, ok)
                if node.trip >= 1:
                    d = inner
            elif in_loop and depth < 3 and r < 0.22:
                node = self.gen_if(d, depth, loop)
                ok = [True]
                d = defined_after([node], d, ok)
            else:
                node = self.gen_stmt(d, in_loop)
                for st in node if isinstance(node, list) else [node]:
                    d |= st.writes
                    body.append(st)
                continue
            body.append(node)
        # end every loop body with a store, so the iteration is visible in GM
        st = [u for u in self.ubs if u in d]
        if in_loop and st:
            y = rng.choice(["Y0", "Y1"])
            src = rng.choice(st)
            body.append(Stmt("store", [f"T.copy({src}, {y}[bx, {{t}}, :, :])"], reads=[src]))
            self.count("path.UB->GM")
        return body

    def gen_if(self, defined, depth, loop):
        rng = self.rng
        conds = ["{v} % 2 == 0", "{v} < 2", "{v} > 0", "{v} == 0", "{v} != 1", "{v} % 3 == 1"]
        cond = rng.choice(conds)
        self.count("guard")
        body = self.gen_body(defined, depth + 1, True, loop)[: rng.randint(1, 4)]
        body = self.repair(body, defined)
        orelse = None
        if self.chance(0.35):
            orelse = self.repair(self.gen_body(defined, depth + 1, True, loop)[: rng.randint(1, 4)], defined)
            self.count("guard.else")
        return If(cond, body, orelse)

    def repair(self, body, defined):
        """Drops statements whose reads became undefined after truncation."""
        out = []
        d = set(defined)
        for node in body:
            ok = [True]
            after = defined_after([node], d, ok)
            if ok[0]:
                out.append(node)
                d = after
        return out

    def generate(self):
        self.setup()
        rng, k = self.rng, self.k
        body = []
        d = set()
        # prelude: fills (broadcast to every version) and the ring's clear
        if self.ring:
            body.append(Stmt("ring_clear", [f"T.clear({self.ring[0]})"], writes=[self.ring[0]]))
            d.add(self.ring[0])
        for _ in range(rng.randint(0, 2)):
            dst = rng.choice(self.ubs)
            s = Stmt("fill", [f"T.fill({dst}, 0.75)"], writes=[dst])
            self.count("prelude.fill")
            body.append(s)
            d |= s.writes
        if self.cube and self.chance(0.5):
            body.append(Stmt("clear", ["T.clear(c_l0c)"], writes=["c_l0c"]))
            d.add("c_l0c")
        for _ in range(rng.randint(1, 3)):
            loop = self.gen_loop(d, 0)
            ok = [True]
            inner = defined_after(loop.body, d, ok)
            if loop.trip >= 1:
                d = inner
            body.append(loop)
            if self.chance(0.3):
                # root statements between loops: read the last iteration's values
                st = [u for u in self.ubs if u in d]
                if st:
                    src = rng.choice(st)
                    body.append(Stmt("store_after_loop", [f"T.copy({src}, Y0[bx, 0, :, :])"], reads=[src]))
                    self.count("stmt.store_after_loop")
        k.body = body
        if self.cube and "c_l0c" in d and self.chance(0.5):
            body.append(Stmt("fix_gm", ["T.copy(c_l0c, Cg[bx, 0, :, :])"], reads=["c_l0c"]))
        self.annotate()
        if self.chance(0.25):
            self.bind_memory()
        assert check_valid(k), "generator produced an invalid kernel"
        return k

    def bind_memory(self):
        """A target of its own where memory binds: each scope the kernel uses gets
        the bytes of one version of its storages plus a random slack of 0 to 1.5
        times that, so `none` always fits, `double` may not (expect_double
        either) and `auto` must choose versions that fit."""
        k = self.k
        used = k.used()
        need = {}
        for b in k.bufs.values():
            if b.view_of or b.name not in used:
                continue
            a = ALIGN[b.scope]
            need[b.scope] = need.get(b.scope, 0) + (b.bytes + a - 1) // a * a
        for scope, n in sorted(need.items()):
            a = ALIGN[scope]
            slack = self.rng.choice([0, 0, 0.25, 0.5, 1.0, 1.5])
            k.capacity[scope] = n + int(n * slack) // a * a
            self.count(f"target.capacity_slack={slack}")
        k.expect_double = "either"
        self.count("target.derived")


def generate(seed, profile="full"):
    return Gen(seed, profile).generate()


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--profile", default="full", choices=["full", "ci", "vector"])
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    text = generate(a.seed, a.profile).render()
    if a.output:
        open(a.output, "w").write(text)
    else:
        sys.stdout.write(text)
