"""T.copy between global memory and a fragment outside any VF region, as
upstream's plain-TileLang MHC kernels write it: a fragment has no DMA path,
so the elements move one by one; a (4, 32) box at a block's offset is loaded,
scaled in a T.Parallel loop, broadcast to 3 copies and stored.

    O[b * 4 + i, m, j] = 3 * X[b * 4 + i, j]     (float32, 2 blocks of 4 rows)
"""

import tilelang
import tilelang.language as T


def fragment_copy():
    @T.prim_func
    def main(X: T.Tensor((8, 32), "float32"), O: T.Tensor((8, 3, 32), "float32")):
        with T.Kernel(2) as b:
            xl = T.alloc_fragment((4, 32), "float32")
            T.copy(X[b * 4, 0], xl)
            for i, j in T.Parallel(4, 32):
                xl[i, j] = xl[i, j] * 3.0
            for m in T.serial(3):
                T.copy(xl, O[b * 4 : b * 4 + 4, m, :])

    return main


if __name__ == "__main__":
    fragment_copy()
