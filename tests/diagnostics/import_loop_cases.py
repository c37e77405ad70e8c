# A driver loop over (factory, sizes) cases, as upstream test files write them
# (`for op, factory, ... in [...]`): each factory takes its values from the
# first iteration that calls it, the imported one from the second.
import tilelang
import tilelang.language as T

from _import_scale_lib import scale_rows


def copy_rows(M, N, block_M=8):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(M // block_M) as bx:
            a = T.alloc_shared((block_M, N), "float32")
            T.copy(A[bx * block_M, 0], a)
            T.copy(a, B[bx * block_M, 0])

    return main


CASES = [(copy_rows, 16, 32), (scale_rows, 64, 128)]

if __name__ == "__main__":
    for factory, m, n in CASES:
        # expected-note@+2 col 35 {{factory 'copy_rows' takes M=16, N=32, block_M=16 from its call at line 27; -D NAME=VALUE overrides them}}
        # expected-note@+1 col 35 {{factory 'scale_rows' takes M=64, N=128, block_M=16 from its call at line 27; -D NAME=VALUE overrides them}}
        kernel = tilelang.compile(factory(m, n, 16))

# The imported factory comes first (its import is above the file's own def).
# CHECK: def main(A: T.Tensor((64, 128), "float32")
# CHECK: def main(A: T.Tensor((16, 32), "float32")
