# A name imported from a module that is not next to the file is an error where a
# compiled factory uses it; the message names the import's line.
import tilelang.language as T

from _no_helpers_module import TILE


def tiled_copy(N=1024):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // TILE) as bx:  # expected-error col 28 {{'TILE' could not be evaluated at compile time: cannot import 'TILE' from '_no_helpers_module': no file _no_helpers_module.py next to import_missing_used_in_kernel.py; tilesched reads kernel factories from modules in the same folder as the compiled file (the import at line 5)}}
            a = T.alloc_shared((TILE,), "float32")
            T.copy(A[bx * TILE], a)
            T.copy(a, B[bx * TILE])

    return main
