#!/usr/bin/python3
"""End-to-end oracle test: one kernel, one numpy model, one comparison.

    run_oracle.py --tilesched BIN --kernel examples/X.py --model tests/oracle/models/X.py
                  --workdir DIR [-D NAME=VALUE]... [--func NAME] [--seed N]

The model (a small Python file, see tests/README.md) gives the factory
parameters' defaults (DEFAULTS), the input tensors (inputs(rng, p)) and the
expected outputs computed from the kernel's mathematical definition
(expected(ins, p)), independently of tilesched. This driver:

1. merges the -D values into DEFAULTS (a -D the model does not know is an
   error, so the model and the kernel always see the same parameters);
2. writes every input as DIR/in/NAME.npy, and every output tensor as a
   NaN-filled (or 0x5A-patterned, for ints) DIR/in/NAME.npy too, so an element
   the kernel never writes shows up as a mismatch;
3. runs `BIN run KERNEL -D ... --schedule serial|auto --input NAME=file ... --output-dir DIR/out`
   (tilesched's own reference-vs-simulator check must pass: exit 0);
4. checks that DIR/out holds exactly the expected outputs and compares each
   one bit for bit (or within the model's TOLERANCE, in units in the last
   place), printing the first mismatches with index, values and bit patterns.

Self-tests of the harness: `--mutate OLD NEW` runs a copy of the kernel with
the one occurrence of OLD replaced by NEW (a planted front-end-style mistake
that tilesched's own reference check cannot see), and `--expect-mismatch`
then passes only when tilesched accepts the run and the comparison fails.

Run it with Debian's /usr/bin/python3 (python3-numpy). Exit 0 pass, 1 fail.
"""

import argparse
import ast
import importlib.util
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

try:
    import numpy as np
except ImportError:  # pragma: no cover - environment problem, say how to fix it
    sys.exit("run_oracle.py: numpy is missing; install Debian's python3-numpy "
             "(scripts/install-deps.sh) and run with /usr/bin/python3")

MAX_REPORTED = 8
np.seterr(all="ignore")  # inf, NaN and underflow are IEEE results the models mean, not mistakes


def parse_define(text):
    if "=" not in text:
        raise SystemExit(f"run_oracle.py: -D {text!r} is not NAME=VALUE")
    name, value = text.split("=", 1)
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value  # a bare word such as dtype=float16


def load_model(path):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # models import oracle_lib
    spec.loader.exec_module(module)
    for needed in ("DEFAULTS", "inputs", "expected"):
        if not hasattr(module, needed):
            raise SystemExit(f"run_oracle.py: model {path} does not define {needed}")
    return module


def sentinel_like(array):
    if array.dtype.kind == "f":
        return np.full(array.shape, np.nan, dtype=array.dtype)
    pattern = np.full(array.shape, 0x5A, dtype=np.uint8)
    return np.frombuffer(np.resize(pattern, array.nbytes).tobytes(), dtype=array.dtype).reshape(array.shape)


def ordered_bits(array):
    """Map floats to integers whose order and distance are those of the
    floats (ulps), with +0 and -0 both at 0."""
    width = {2: np.int16, 4: np.int32, 8: np.int64}[array.dtype.itemsize]
    bits = array.view(width).astype(np.int64)
    sign_bit = 1 << (8 * array.dtype.itemsize - 1)
    return np.where(bits < 0, -(bits + sign_bit), bits)


def compare(name, got, want, max_ulp):
    problems = []
    if got.dtype != want.dtype:
        return [f"{name}: dtype {got.dtype} but the model expects {want.dtype}"]
    if got.shape != want.shape:
        return [f"{name}: shape {got.shape} but the model expects {want.shape}"]
    raw = np.dtype(f"u{want.dtype.itemsize}") if want.dtype.kind in "fiub" and want.dtype.itemsize in (1, 2, 4, 8) else None
    if raw is None:
        return [f"{name}: cannot compare dtype {want.dtype}"]
    got_bits = got.reshape(-1).view(raw)
    want_bits = want.reshape(-1).view(raw)
    if max_ulp and want.dtype.kind == "f":
        g = got.reshape(-1)
        w = want.reshape(-1)
        both_nan = np.isnan(g) & np.isnan(w)
        distance = np.abs(ordered_bits(g) - ordered_bits(w))
        bad = ~both_nan & ((np.isnan(g) != np.isnan(w)) | (distance > max_ulp))
        worst = int(distance[~np.isnan(g) & ~np.isnan(w)].max(initial=0))
        rule = f"within {max_ulp} ulp (worst {worst})"
    else:
        bad = got_bits != want_bits
        rule = "bit for bit"
    wrong = np.flatnonzero(bad)
    if wrong.size == 0:
        print(f"  {name}: {want.size} elements match the model {rule}")
        return []
    problems.append(f"{name}: {wrong.size} of {want.size} elements differ from the model ({rule} required)")
    width = 2 * want.dtype.itemsize
    for flat in wrong[:MAX_REPORTED]:
        index = np.unravel_index(flat, want.shape)
        problems.append(
            f"    {name}{list(int(i) for i in index)}: expected {want.reshape(-1)[flat]!r} "
            f"(0x{int(want_bits[flat]):0{width}x}), got {got.reshape(-1)[flat]!r} (0x{int(got_bits[flat]):0{width}x})")
    if wrong.size > MAX_REPORTED:
        problems.append(f"    ... and {wrong.size - MAX_REPORTED} more")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tilesched", required=True)
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--func")
    parser.add_argument("--schedule", default="serial",
                        help="tilesched run --schedule (serial, or auto to check the scheduled kernel)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the model's input generator")
    parser.add_argument("--mutate", nargs=2, metavar=("OLD", "NEW"),
                        help="run a copy of the kernel with the one occurrence of OLD replaced by NEW")
    parser.add_argument("--expect-mismatch", action="store_true",
                        help="pass only when tilesched passes its own checks but the outputs differ from the model")
    parser.add_argument("--wide", nargs=2, type=float, metavar=("LO", "HI"),
                        help="inputs of any magnitude in [LO, HI] with signed zeros, repeats allowed "
                             "(overflow, subnormals, saturation) instead of distinct moderate values")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()

    model = load_model(args.model)
    params = dict(model.DEFAULTS)
    for text in args.defines:
        name, value = parse_define(text)
        if name not in params:
            raise SystemExit(f"run_oracle.py: -D {name} is not a parameter the model {args.model} knows "
                             f"(DEFAULTS has {', '.join(sorted(params))})")
        params[name] = value

    if args.wide:
        import oracle_lib
        oracle_lib.WIDE_RANGE = tuple(args.wide)
    rng = np.random.default_rng(args.seed)
    generated = model.inputs(rng, params)
    # A Python number is a scalar parameter (`--input NAME=3.5`), not a tensor.
    scalars = {name: v for name, v in generated.items() if isinstance(v, (int, float))}
    inputs = {name: np.ascontiguousarray(a) for name, a in generated.items() if name not in scalars}
    expected = model.expected({**{name: a.copy() for name, a in inputs.items()}, **scalars}, params)
    tolerance = getattr(model, "TOLERANCE", {})

    in_dir = os.path.join(args.workdir, "in")
    out_dir = os.path.join(args.workdir, "out")
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(in_dir)
    os.makedirs(out_dir)
    kernel = args.kernel
    if args.mutate:
        old, new = args.mutate
        with open(kernel, encoding="utf-8") as f:
            text = f.read()
        if text.count(old) != 1:
            raise SystemExit(f"run_oracle.py: --mutate: {old!r} occurs {text.count(old)} times in {kernel}, not once")
        kernel = os.path.join(args.workdir, "mutant_" + os.path.basename(kernel))
        with open(kernel, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new))
        # The modules the kernel file imports live next to it: next to the mutant too.
        source_dir = os.path.dirname(os.path.abspath(args.kernel))
        for name in sorted(os.listdir(source_dir)):
            if name.endswith(".py") and name != os.path.basename(args.kernel):
                shutil.copy(os.path.join(source_dir, name), os.path.join(args.workdir, name))
        print(f"mutant of {args.kernel}: {old!r} -> {new!r}")
    command = [args.tilesched, "run", kernel, "--schedule", args.schedule, "--output-dir", out_dir]
    if args.func:
        command += ["--func", args.func]
    for text in args.defines:
        command += ["-D", text]
    initial = dict(inputs)
    for name, want in expected.items():
        if name not in initial:
            initial[name] = sentinel_like(np.asarray(want))
    for name, array in initial.items():
        path = os.path.join(in_dir, f"{name}.npy")
        np.save(path, array)
        command += ["--input", f"{name}={path}"]

    for name, value in scalars.items():
        command += ["--input", f"{name}={value!r}"]
    print("$ " + " ".join(command))
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(run.stdout, end="")
    if run.returncode != 0:
        print(f"FAIL: tilesched exited with status {run.returncode}")
        return 1
    verdict = check_outputs(out_dir, expected, tolerance, args.model)
    if args.expect_mismatch:
        if verdict == 0:
            print("FAIL: the mutant's outputs equal the model; the oracle did not see the planted mistake")
            return 1
        print("PASS (expected mismatch): the oracle caught the planted mistake")
        return 0
    return verdict


def check_outputs(out_dir, expected, tolerance, model_path):
    """0 when DIR/out holds exactly the expected outputs, each equal to the model."""
    problems = []
    written = sorted(f[:-4] for f in os.listdir(out_dir) if f.endswith(".npy"))
    for name in written:
        if name not in expected:
            problems.append(f"{name}: the kernel wrote it, but the model expects no such output")
    for name in sorted(expected):
        if name not in written:
            problems.append(f"{name}: the model expects this output, but tilesched wrote no {name}.npy")
            continue
        got = np.load(os.path.join(out_dir, f"{name}.npy"))
        problems += compare(name, got, np.asarray(expected[name]), tolerance.get(name, 0))
    if problems:
        print("FAIL: outputs differ from the independent model " + os.path.basename(model_path))
        for line in problems:
            print("  " + line)
        return 1
    print("PASS: every output equals the independent model " + os.path.basename(model_path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
