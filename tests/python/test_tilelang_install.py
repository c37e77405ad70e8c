"""tilesched.tilelang.install() against a stub tvm_ffi (tests/python/stub):
both upstream names are registered, called as TileLang's C++ pass calls them
(positionally), and uninstall() restores what was there."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "stub"))

import tvm_ffi  # noqa: E402  (the stub)

import tilesched.tilelang  # noqa: E402


def test_install_registers_both_and_uninstall_restores():
    def upstream_loop(*args):
        return "upstream loop"

    tvm_ffi.register_global_func(tilesched.tilelang.LOOP_NAME, upstream_loop, override=True)
    tvm_ffi.remove_global_func(tilesched.tilelang.STRAIGHT_LINE_NAME)
    tilesched.tilelang.install()
    assert tilesched.tilelang.installed()
    loop = tvm_ffi.get_global_func(tilesched.tilelang.LOOP_NAME)
    line = tvm_ffi.get_global_func(tilesched.tilelang.STRAIGHT_LINE_NAME)
    # The C++ pass's positional order (z3_schedule_loop_ffi / z3_schedule_ffi).
    start, versions, ii = loop(2, [10, 10], [4, 6], [2, 16], [[0, 1, 0, 10], [1, 0, -1, 10]], [],
                               [], [], [100], [[200, 0]], None, False, None, False)
    assert (versions, ii) == ([2], 10)
    assert line([8, 3], [5, 3], [2, 16], [[0, 1, 8]], [], [], []) == [0, 8]
    tilesched.tilelang.uninstall()
    assert not tilesched.tilelang.installed()
    assert tvm_ffi.get_global_func(tilesched.tilelang.LOOP_NAME) is upstream_loop
    assert tvm_ffi.get_global_func(tilesched.tilelang.STRAIGHT_LINE_NAME, allow_missing=True) is None
