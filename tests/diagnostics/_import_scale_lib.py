# A kernel module in the style of the upstream Ascend examples (example_X.py):
# the factory, a torch reference and a self-test. Imported by the import_*.py
# tests; it is not a test itself (its name starts with '_').
import torch

import tilelang
import tilelang.language as T


def scale_rows(M, N, block_M, factor=2.0, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M) as bx:
            a = T.alloc_shared((block_M, N), dtype)
            T.copy(A[bx * block_M, 0], a)
            for i, j in T.Parallel(block_M, N):
                a[i, j] = a[i, j] * factor
            T.copy(a, B[bx * block_M, 0])

    return main


def ref_program(a, factor=2.0):
    assert a.dim() == 2, "only run on the host"
    return a * factor


def test_scale_rows_small():
    # Never run by tilesched: a test of the module itself.
    assert False, "the module's own test must not run"


if __name__ == "__main__":
    kernel = tilelang.compile(scale_rows(8, 8, 8))
