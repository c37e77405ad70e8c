"""The manual form with a plain FixPipe copy from the cube core's L0C into
UB: the AIC has no UB of its own, so `T.copy(acc, acc_ub)` inside
`with T.Cube():` writes the UB of vector core 0, which waits for the
cross-core flag (id 6), adds 1 and stores the tile. Each block computes the
rows [bx * TILE, (bx + 1) * TILE) of

    C = X @ W + 1
"""

import tilelang.language as T


def manual_fixpipe_to_aiv0(M=128, N=64, K=64, TILE=64):
    @T.prim_func
    def main(
        X: T.Tensor((M, K), "float16"),
        W: T.Tensor((K, N), "float16"),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(M // TILE) as bx:
            x_l1 = T.alloc_l1((TILE, K), "float16")
            w_l1 = T.alloc_l1((K, N), "float16")
            acc = T.alloc_l0c((TILE, N), "float32")
            acc_ub = T.alloc_ub((TILE, N), "float32")
            out_ub = T.alloc_ub((TILE, N), "float32")

            with T.Cube():
                T.copy(X[bx * TILE, 0], x_l1)
                T.copy(W[0, 0], w_l1)
                T.ascend_set_flag("MTE2_MTE1", 0)
                T.ascend_wait_flag("MTE2_MTE1", 0)
                T.gemm(x_l1, w_l1, acc, clear_accum=True)
                T.ascend_set_flag("M_FIX", 0)
                T.ascend_wait_flag("M_FIX", 0)
                T.copy(acc, acc_ub)
                T.ascend_cross_core_set_flag(4, "PIPE_FIX", 6)

            with T.Vector(vector=1):
                T.ascend_cross_core_wait_flag(4, "PIPE_V", 6)
                for i, j in T.Parallel(TILE, N):
                    out_ub[i, j] = acc_ub[i, j] + 1.0
                T.ascend_set_flag("V_MTE3", 0)
                T.ascend_wait_flag("V_MTE3", 0)
                T.copy(out_ub, C[bx * TILE, 0])

    return main


kernel = manual_fixpipe_to_aiv0()
