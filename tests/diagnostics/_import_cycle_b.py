# The other half of the import cycle of import_cycle.py: TILE is not defined
# yet when this module imports it from the partially loaded _import_cycle_a.
import tilelang.language as T

from _import_cycle_a import TILE

BLOCK = 64


def tiled_copy(N):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // TILE) as bx:  # expected-error col 28 {{'TILE' could not be evaluated at compile time: cannot import name 'TILE' from partially initialized module '_import_cycle_a' (an import cycle)}}
            a = T.alloc_shared((TILE,), "float32")
            T.copy(A[bx * TILE], a)
            T.copy(a, B[bx * TILE])

    return main
