# `import MODULE` of a sibling module and a call `MODULE.factory(...)` in the
# file's __main__ block: the factory takes that call's values (the __main__
# block runs before the test functions, as `python file.py` would).
import tilelang

import _import_scale_lib as lib


def test_scale(M=8):
    kernel = tilelang.compile(lib.scale_rows(M, 64, 8))


if __name__ == "__main__":
    rows = 128
    program = lib.scale_rows(rows, 256, 32, factor=0.5)  # expected-note col 15 {{factory 'scale_rows' takes M=128, N=256, block_M=32, factor=0.5 from its call at line 15; -D NAME=VALUE overrides them}}
    kernel = tilelang.compile(program)

# CHECK: A: T.Tensor((128, 256), "float32")
# CHECK: T.Kernel(4)
# CHECK: a[i, j] = a[i, j] * 0.5
