"""tilesched from Python: the drop-in solver for TileLang's AutoSchedule and the
compiler's commands as functions.

    import tilesched
    start, versions, ii = tilesched.schedule_loop(num_stages=2, latencies=[...], ...)
    report = tilesched.run("examples/vec_add.py", defines={"N": 4096})

`schedule_loop` and `schedule_straight_line` take the keyword arguments of
TileLang's `z3_schedule_loop_python` and `z3_schedule_python` and return what
they return (docs/solver-interface.md maps every field). `solve` returns the
whole answer, with tilesched's own figures under "tilesched".
`tilesched.tilelang.install()` routes TileLang's AutoSchedule to this solver.

Errors: a wrong argument raises ValueError naming the field; a problem with no
schedule raises ScheduleError (a RuntimeError, as upstream raises on "unsat");
a kernel that does not compile raises CompileError with its diagnostics.
The GIL is released while solving and simulating.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile

from . import _tilesched

__all__ = [
    "CompileError",
    "ScheduleError",
    "Diagnostic",
    "schedule_loop",
    "schedule_straight_line",
    "solve",
    "compile",
    "run",
    "explain",
]

DEFAULT_TIMEOUT_MS = 2000

# The positional order of upstream's FFI entry points (the C++ side calls them
# positionally): tl.transform.z3_schedule_loop_python, tl.transform.z3_schedule_python.
LOOP_POSITIONAL = (
    "num_stages",
    "latencies",
    "iis",
    "resource_flags",
    "data_deps",
    "resource_deps",
    "owner_exclusion_deps",
    "pipe_order_deps",
    "buffer_sizes",
    "memory_groups",
    "stage_order_deps",
    "enable_offset",
    "manual_stages",
    "manual_schedule",
)
STRAIGHT_LINE_POSITIONAL = (
    "latencies",
    "iis",
    "resource_flags",
    "data_deps",
    "resource_deps",
    "owner_exclusion_deps",
    "pipe_order_deps",
)


class ScheduleError(RuntimeError):
    """The problem has no schedule (or none that passes the checker)."""

    def __init__(self, message: str, checker_messages: list[str] | None = None):
        super().__init__(message)
        self.checker_messages = checker_messages or []


class Diagnostic:
    """One diagnostic of the compiler: file, line, column, severity, message."""

    def __init__(self, file, line, column, severity, message):
        self.file, self.line, self.column = file, line, column
        self.severity, self.message = severity, message

    def __repr__(self):
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"


class CompileError(Exception):
    """The kernel did not compile; `diagnostics` holds what the compiler said."""

    def __init__(self, message: str, diagnostics: list[Diagnostic]):
        super().__init__(message)
        self.diagnostics = diagnostics


def _plain(value, path):
    """Python (or TVM, numpy) containers and numbers as JSON values."""
    if value is None or isinstance(value, (bool, str, float)):
        return value
    if isinstance(value, int):
        return int(value)
    if hasattr(value, "__index__"):  # numpy and TVM integers
        return int(value.__index__())
    if isinstance(value, dict):
        return {str(k): _plain(v, f"{path}[{k!r}]") for k, v in value.items()}
    if hasattr(value, "__len__") and hasattr(value, "__iter__"):
        return [_plain(v, f"{path}[{i}]") for i, v in enumerate(value)]
    raise ValueError(f"{path}: {type(value).__name__} is not a number or a list")


def _arguments(args, kwargs, positional, what):
    if len(args) > len(positional):
        raise ValueError(f"{what} takes at most {len(positional)} positional arguments")
    problem = dict(zip(positional, args))
    for name in kwargs:
        if name in problem:
            raise ValueError(f"{name}: given twice (positionally and by name)")
    problem.update(kwargs)
    timeout = problem.pop("timeout_ms", DEFAULT_TIMEOUT_MS)
    if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 0:
        raise ValueError("timeout_ms: must be a non-negative integer")
    return {name: _plain(v, name) for name, v in problem.items()}, timeout


def _solve(problem, straight_line, timeout_ms):
    status, text = _tilesched.solve(json.dumps(problem), straight_line, timeout_ms)
    if status == "field":
        field, message = text.split("\n", 1)
        error = ValueError(f"{field}: {message}")
        error.field = field
        raise error
    if status == "infeasible":
        lines = text.split("\n")
        raise ScheduleError(lines[0], lines[1:])
    result = json.loads(text)
    if problem.get("verbose"):
        print(f"[tilesched] {json.dumps(result['tilesched'])}")
    return result


def solve(problem: dict, straight_line: bool = False, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> dict:
    """The whole answer to one problem: upstream's return values by name
    (start_times, buffer_versions, ii; or start_times, sorted_indices,
    makespan) and tilesched's figures under "tilesched"."""
    plain, timeout = _arguments((), dict(problem, timeout_ms=timeout_ms), (), "solve")
    return _solve(plain, straight_line, timeout)


def schedule_loop(*args, **kwargs):
    """tilesched's answer to `z3_schedule_loop_python(...)`:
    (start_times, buffer_versions, ii)."""
    problem, timeout = _arguments(args, kwargs, LOOP_POSITIONAL, "schedule_loop")
    result = _solve(problem, False, timeout)
    return result["start_times"], result["buffer_versions"], result["ii"]


def schedule_straight_line(*args, **kwargs):
    """tilesched's answer to `z3_schedule_python(...)`: (start_times, sorted_indices)."""
    problem, timeout = _arguments(args, kwargs, STRAIGHT_LINE_POSITIONAL, "schedule_straight_line")
    result = _solve(problem, True, timeout)
    return result["start_times"], result["sorted_indices"]


_DIAGNOSTIC = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|note): (.*)$")


def _kernel_args(command, path, defines, target, func, timeout_ms):
    args = [command, os.fspath(path)]
    for name, value in (defines or {}).items():
        # Python literals, as -D takes them: strings quoted ('float16').
        args += ["-D", f"{name}={value!r}"]
    if target is not None:
        args += ["--target", target]
    if func is not None:
        args += ["--func", func]
    if timeout_ms is not None:
        args += ["--solver-timeout-ms", str(int(timeout_ms))]
    return args


def _raise_for(code, err, report=None):
    if code == 2:
        raise ValueError(err.strip())
    diagnostics = []
    for d in (report or {}).get("diagnostics", []):
        diagnostics.append(Diagnostic(d["file"], d["line"], d["col"], d["severity"], d["message"]))
    if not diagnostics:
        for line in err.splitlines():
            m = _DIAGNOSTIC.match(line)
            if m:
                diagnostics.append(Diagnostic(m[1], int(m[2]), int(m[3]), m[4], m[5]))
    errors = [d for d in diagnostics if d.severity == "error"]
    first = repr(errors[0]) if errors else err.strip().splitlines()[0] if err.strip() else "failed"
    raise CompileError(first, diagnostics)


def compile(path, defines=None, target=None, func=None, timeout_ms=None, extra_args=()) -> dict:
    """`tilesched compile PATH --emit report-json` as a dict. `extra_args`:
    further command-line options (`["--dump-schedule-problems", "dir"]`)."""
    code, out, err = _tilesched.cli(
        _kernel_args("compile", path, defines, target, func, timeout_ms)
        + ["--emit", "report-json"] + [str(a) for a in extra_args]
    )
    report = json.loads(out) if out.strip().startswith("{") else None
    if code != 0:
        _raise_for(code, err, report)
    return report


def explain(path, defines=None, target=None, func=None, timeout_ms=None) -> dict:
    """The compile report (with each buffer's `why` and each loop's
    `ii_bound_by`) and, under "text", what `tilesched explain` prints."""
    report = compile(path, defines, target, func, timeout_ms)
    code, out, err = _tilesched.cli(_kernel_args("explain", path, defines, target, func, timeout_ms))
    if code != 0:
        _raise_for(code, err)
    report["text"] = out
    return report


def run(path, defines=None, target=None, func=None, inputs=None, schedule="auto", seed=0,
        timeout_ms=None, cores=None, extra_args=()) -> dict:
    """`tilesched run` as a dict: the JSON report with its `simulation` object.
    `inputs` maps a tensor parameter to an array (numpy, or anything
    numpy.asarray takes) or a scalar parameter to a number; with numpy
    importable, `outputs` maps every output tensor to the simulated array.
    A run that mismatches or races returns its report (simulation.pass is
    False); a kernel that does not compile raises CompileError. `cores`: AI
    cores running blocks at once (--cores); `extra_args`: further options
    (`["--timeline", "t.svg"]`)."""
    try:
        import numpy
    except ImportError:
        numpy = None
    work = tempfile.mkdtemp(prefix="tilesched_run_")
    try:
        args = _kernel_args("run", path, defines, target, func, timeout_ms)
        args += ["--schedule", schedule, "--seed", str(int(seed))]
        if cores is not None:
            args += ["--cores", str(int(cores))]
        args += [str(a) for a in extra_args]
        args += ["--report", os.path.join(work, "report.json")]
        for name, value in (inputs or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                args += ["--input", f"{name}={value}"]
                continue
            if numpy is None:
                raise ValueError(f"inputs[{name!r}]: arrays need numpy")
            file = os.path.join(work, f"input_{name}.npy")
            numpy.save(file, numpy.asarray(value))
            args += ["--input", f"{name}={file}"]
        outputs = os.path.join(work, "outputs")
        if numpy is not None:
            args += ["--output-dir", outputs]
        code, out, err = _tilesched.cli(args)
        report_file = os.path.join(work, "report.json")
        report = json.load(open(report_file)) if os.path.exists(report_file) else None
        if code not in (0, 3) or report is None:
            _raise_for(code if code != 0 else 1, err, report)
        report["stdout"] = out
        if numpy is not None and os.path.isdir(outputs):
            report["outputs"] = {
                f[: -len(".npy")]: numpy.load(os.path.join(outputs, f))
                for f in sorted(os.listdir(outputs))
                if f.endswith(".npy")
            }
        return report
    finally:
        shutil.rmtree(work, ignore_errors=True)
