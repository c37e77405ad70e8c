"""Shared by tests/python: where the build is, and the problems the compiler
dumps for the bundled kernels (written once per session with
`tilesched compile --dump-schedule-problems`)."""

import glob
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("TILESCHED_BINARY", os.path.join(ROOT, "build", "tilesched"))

# Kernels whose lists are dumped: the examples, the ordinary-style bench
# kernels and every kernel of the test suite that compiles without -D. Lists
# without a task (an empty kernel body) are left out: the solver refuses an
# empty list (ValueError, tested on its own), and TileLang never asks.
KERNEL_GLOBS = ["examples/*.py", "bench/kernels/*.py", "tests/oracle/kernels/*.py",
                "tests/diagnostics/*.py", "tests/passes/*.py", "tests/driver/*/*.py",
                "tests/random/regress/*.py"]


@pytest.fixture(scope="session")
def dumped_problems(tmp_path_factory):
    out = tmp_path_factory.mktemp("dumps")
    problems = []
    for pattern in KERNEL_GLOBS:
        for kernel in sorted(glob.glob(os.path.join(ROOT, pattern))):
            name = os.path.splitext(os.path.basename(kernel))[0]
            directory = out / f"{os.path.basename(os.path.dirname(kernel))}_{name}"
            result = subprocess.run(
                [BINARY, "compile", kernel, "--dump-schedule-problems", str(directory), "--emit", "schedule"],
                capture_output=True, text=True)
            if result.returncode != 0:
                continue  # a kernel needing -D values: its problems are not dumped
            for file in sorted(glob.glob(str(directory / "*.json"))):
                with open(file) as f:
                    dump = json.load(f)
                if dump["latencies"]:
                    problems.append((os.path.relpath(file, out), dump))
    assert len(problems) > 100, "the bundled kernels dump more than 100 problems"
    return problems
