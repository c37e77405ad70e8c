"""T.copy inside a T.SimtVF region, as upstream's SIMT copy tests write it: the
region's threads move the elements themselves (no DMA), converting float16 to
float32 like a store, from a 2-D box at an offset of the source.

    Y[r, c] = float32(X[2 + r, 8 + c]) * 2   for r < 4, c < 16
"""

import tilelang
import tilelang.language as T


def simt_copy():
    @T.prim_func
    def main(X: T.Tensor((8, 32), "float16"), Y: T.Tensor((4, 16), "float32")):
        with T.Kernel(1) as _:
            t = T.alloc_shared((4, 16), "float32")
            with T.SimtVF(threads=64):
                T.copy(X[2:6, 8:24], t)
                for r, c in T.Parallel(4, 16):
                    t[r, c] = t[r, c] * 2.0
            T.copy(t, Y)

    return main


if __name__ == "__main__":
    simt_copy()
