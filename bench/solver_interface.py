#!/usr/bin/python3
"""The drop-in solver side by side: every scheduling problem the bundled
kernels dump (examples/, bench/kernels/, every test kernel that compiles
without -D), solved through the
Python module (`tilesched.solve`, in-process) and through the CLI
(`tilesched solve FILE`, one process per problem). Prints one row per
problem (tasks, II or makespan of each, the solver's own milliseconds of
each, the CLI's wall time with its process start) and a summary. Not a test:
nothing asserts a time.

    PYTHONPATH=build/python /usr/bin/python3 bench/solver_interface.py [--rows]
"""

import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))
import tilesched  # noqa: E402

BINARY = os.path.join(ROOT, "build", "tilesched")
KERNELS = ["examples/*.py", "bench/kernels/*.py", "tests/oracle/kernels/*.py",
           "tests/diagnostics/*.py", "tests/passes/*.py", "tests/driver/*/*.py",
           "tests/random/regress/*.py"]
DUMP_ONLY = {"start_times", "versions", "modulo_versions", "ii", "ii_lower_bound",
             "proven_optimal", "solve_ms", "list"}


def dump_all(directory):
    files = []
    for pattern in KERNELS:
        for kernel in sorted(glob.glob(os.path.join(ROOT, pattern))):
            name = os.path.splitext(os.path.basename(kernel))[0]
            out = os.path.join(directory, f"{os.path.basename(os.path.dirname(kernel))}_{name}")
            r = subprocess.run([BINARY, "compile", kernel, "--dump-schedule-problems", out,
                                "--emit", "schedule"], capture_output=True)
            if r.returncode == 0:
                files += sorted(glob.glob(os.path.join(out, "*.json")))
    return files


def main():
    rows = "--rows" in sys.argv
    with tempfile.TemporaryDirectory() as directory:
        files = dump_all(directory)
        table = []
        for file in files:
            with open(file) as f:
                dump = json.load(f)
            if not dump["latencies"]:
                continue  # an empty kernel body: nothing to schedule (TileLang never asks)
            problem = {k: v for k, v in dump.items() if k not in DUMP_ONLY}
            is_loop = problem.pop("is_loop")
            module = tilesched.solve(problem, straight_line=not is_loop)
            begin = time.perf_counter()
            r = subprocess.run([BINARY, "solve", file], capture_output=True, text=True, check=True)
            cli_wall = (time.perf_counter() - begin) * 1e3
            cli = json.loads(r.stdout)
            key = "ii" if is_loop else "makespan"
            table.append(dict(name=os.path.relpath(file, directory), tasks=len(problem["latencies"]),
                              loop=is_loop, module_ii=module[key], cli_ii=cli[key], compile_ii=dump["ii"],
                              module_ms=module["tilesched"]["solve_ms"],
                              cli_ms=cli["tilesched"]["solve_ms"], cli_wall=cli_wall,
                              proven=module["tilesched"]["proven_optimal"]))
    if rows:
        print(f"{'problem':<58} {'tasks':>5} {'II mod':>7} {'II cli':>7} {'mod ms':>8} {'cli ms':>8} {'cli wall':>9}")
        for t in table:
            print(f"{t['name'][:58]:<58} {t['tasks']:>5} {t['module_ii']:>7} {t['cli_ii']:>7} "
                  f"{t['module_ms']:>8.2f} {t['cli_ms']:>8.2f} {t['cli_wall']:>9.1f}")
    loops = [t for t in table if t["loop"]]
    same = sum(t["module_ii"] == t["cli_ii"] == t["compile_ii"] for t in table)
    print(f"problems: {len(table)} ({len(loops)} loops, {len(table) - len(loops)} straight-line lists)")
    print(f"II (makespan) equal in module, CLI and compile: {same} of {len(table)}")
    print(f"proven optimal: {sum(t['proven'] for t in table)} of {len(table)}")
    for what in ("module_ms", "cli_ms", "cli_wall"):
        values = [t[what] for t in table]
        print(f"{what:<10} median {statistics.median(values):7.2f} ms   max {max(values):8.2f} ms   "
              f"total {sum(values):9.1f} ms")


if __name__ == "__main__":
    main()
