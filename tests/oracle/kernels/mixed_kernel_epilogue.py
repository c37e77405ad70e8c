"""A mixed cube/vector kernel under T.MixedKernel(n, sids=1): the cube core
computes a tile of A @ B^T (GM -> L1 -> L0, gemm into L0C), the fixpipe
moves it to the UB of the one vector core (AIV 0), which scales it, adds the
sub-core index (`sid`, 0 with one sub-core) plus one, and stores it.

    C[m, n] = (sum_k A[m, k] * B[n, k]) * 2 + sid + 1     (sid = 0)
"""

import tilelang.language as T


def mixed_epilogue(M=128, N=64, K=64, block_M=64):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), "float16"),
        B: T.Tensor((N, K), "float16"),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.MixedKernel(M // block_M, sids=1) as (bx, sid):
            a_l1 = T.alloc_l1((block_M, K), "float16")
            b_l1 = T.alloc_l1((N, K), "float16")
            acc = T.alloc_l0c((block_M, N), "float32")
            c_ub = T.alloc_ub((block_M, N), "float32")
            T.copy(A[bx * block_M : (bx + 1) * block_M, :], a_l1)
            T.copy(B, b_l1)
            T.gemm(a_l1, b_l1, acc, transpose_B=True, clear_accum=True)
            T.copy(acc, c_ub)
            for i, j in T.Parallel(block_M, N):
                c_ub[i, j] = c_ub[i, j] * 2.0 + T.cast(sid, "float32") + 1.0
            T.copy(c_ub, C[bx * block_M : (bx + 1) * block_M, :])

    return main
