# A kernel module whose factory import_uncalled_factory.py imports but calls
# only with a run-time size.
import tilelang.language as T


def tile_fill(N, tile=128):
    @T.prim_func
    def main(O: T.Tensor((N,), "float32")):
        with T.Kernel(N // tile) as bx:
            o = T.alloc_shared((tile,), "float32")
            T.fill(o, 1.0)
            T.copy(o, O[bx * tile])

    return main
