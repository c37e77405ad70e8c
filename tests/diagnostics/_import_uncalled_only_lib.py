# A kernel module whose factory import_uncalled_only.py imports but calls only
# with a run-time size: with no other kernel, its missing value is the error.
import tilelang.language as T


def tile_fill(N, tile=128):  # expected-error col 15 {{parameter 'N' of kernel factory 'tile_fill' has no default; pass -D N=VALUE}}
    @T.prim_func
    def main(O: T.Tensor((N,), "float32")):
        with T.Kernel(N // tile) as bx:
            o = T.alloc_shared((tile,), "float32")
            T.fill(o, 1.0)
            T.copy(o, O[bx * tile])

    return main
