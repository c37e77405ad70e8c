"""Route TileLang's Ascend AutoSchedule to tilesched's solver.

    import tilelang                      # registers upstream's Python solvers
    import tilesched.tilelang
    tilesched.tilelang.install()         # AutoSchedule now asks tilesched
    ...compile kernels with TileLang as usual...
    tilesched.tilelang.uninstall()       # back to the solvers that were there

`install()` registers, with override, the two TVM FFI globals the C++ pass
calls: `tl.transform.z3_schedule_loop_python` (returns start_times,
buffer_versions, ii) and `tl.transform.z3_schedule_python` (returns
start_times). It keeps the functions it replaced; `uninstall()` puts them back.
Every schedule handed to TileLang has passed tilesched's checker; a problem
without a schedule raises (TileLang's C++ side then reports it), never a
silent sequential fallback.
"""

from __future__ import annotations

import tilesched

LOOP_NAME = "tl.transform.z3_schedule_loop_python"
STRAIGHT_LINE_NAME = "tl.transform.z3_schedule_python"

_previous: dict[str, object] | None = None


def _loop_entry(*args):
    start_times, buffer_versions, ii = tilesched.schedule_loop(*args)
    return start_times, buffer_versions, ii


def _straight_line_entry(*args):
    start_times, _ = tilesched.schedule_straight_line(*args)
    return start_times


def _ffi():
    try:
        import tvm_ffi
    except ImportError as error:
        raise ImportError("tilesched.tilelang.install() needs tvm_ffi (TileLang's FFI)") from error
    return tvm_ffi


def installed() -> bool:
    return _previous is not None


def install() -> None:
    """Register tilesched under both upstream names (idempotent)."""
    global _previous
    if _previous is not None:
        return
    ffi = _ffi()
    previous = {}
    for name, entry in ((LOOP_NAME, _loop_entry), (STRAIGHT_LINE_NAME, _straight_line_entry)):
        previous[name] = ffi.get_global_func(name, allow_missing=True)
        ffi.register_global_func(name, entry, override=True)
    _previous = previous


def _missing(name):
    def entry(*args):
        raise RuntimeError(f"{name}: no solver is registered (tilesched was uninstalled)")

    return entry


def uninstall() -> None:
    """Restore the functions install() replaced."""
    global _previous
    if _previous is None:
        return
    ffi = _ffi()
    for name, function in _previous.items():
        if function is not None:
            ffi.register_global_func(name, function, override=True)
        elif hasattr(ffi, "remove_global_func"):
            ffi.remove_global_func(name)
        else:
            ffi.register_global_func(name, _missing(name), override=True)
    _previous = None
