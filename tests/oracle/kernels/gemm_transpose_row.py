"""The last tile of a transposed load when one row is left: a (1, 32) box of A
copied with transpose=True into a (32, 32) L1 tile lands as its first column
(the tile's top-left corner, transposed), the rest of the tile keeps the
zeros it was filled with.

    C = T @ B,  T[:, 0] = A[0, :], T[:, 1:] = 0     (float16 in, float32 out)
"""

import tilelang
import tilelang.language as T


def gemm_row():
    @T.prim_func
    def main(A: T.Tensor((16, 32), "float16"), B: T.Tensor((32, 32), "float16"), C: T.Tensor((32, 32), "float32")):
        with T.Kernel(1):
            a_l1 = T.alloc_L1((32, 32), "float16")
            b_l1 = T.alloc_L1((32, 32), "float16")
            acc = T.alloc_L0C((32, 32), "float32")
            T.fill(a_l1, 0.0)
            T.copy(A[0:1, 0:32], a_l1, transpose=True)
            T.copy(B, b_l1)
            T.gemm(a_l1, b_l1, acc, clear_accum=True)
            T.copy(acc, C)

    return main


if __name__ == "__main__":
    gemm_row()
