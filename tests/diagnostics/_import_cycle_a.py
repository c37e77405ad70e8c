# Half of an import cycle: _import_cycle_b imports this module back while this
# one is still being loaded (see import_cycle.py).
import tilelang.language as T

from _import_cycle_b import BLOCK

TILE = 32


def double_rows(N):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // BLOCK) as bx:
            a = T.alloc_shared((BLOCK,), "float32")
            T.copy(A[bx * BLOCK], a)
            for i in T.Parallel(BLOCK):
                a[i] = a[i] + a[i]
            T.copy(a, B[bx * BLOCK])

    return main
