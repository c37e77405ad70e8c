"""The manual form of a mixed cube/vector kernel: `with T.Cube():` computes
each output tile of X @ W into L0C and hands it to both vector cores with one
hardware dual copy (AIV 0 gets the first half of the tile's rows, AIV 1 the
second, each into its own UB); `with T.Vector() as sid:` scales its half by
sid + 1, adds 0.5 and stores it with a software dual copy (AIV sid writes
rows [sid * TILE / 2, (sid + 1) * TILE / 2) of the tile). Cross-core flags
(mode 4) order the hand-off: AIV s says "temp free" on id 4 (the AIC waits 4
and 20), the AIC says "temp full" on ids 6 and 22. Each AIV writes its ids
as upstream's example_gemm_ub_merge.py does, `4 + 16 * sid` and
`6 + 16 * sid`: an AIV takes its id mod 16.

    C[m, n] = (sum_k X[m, k] * W[k, n]) * (s + 1) + 0.5,  s = (m mod TILE) // (TILE / 2)
"""

import tilelang.language as T


def manual_mix_gemm(M=128, N=128, K=128, TILE=64, NUM_BLOCKS=2):
    HALF = TILE // 2
    N_TILES = N // TILE
    K_TILES = K // TILE
    TILES_PER_CORE = (M // TILE) * N_TILES // NUM_BLOCKS

    @T.prim_func
    def main(
        X: T.Tensor((M, K), "float16"),
        W: T.Tensor((K, N), "float16"),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(NUM_BLOCKS) as bx:
            acc = T.alloc_l0c((TILE, TILE), "float32")
            x_l1 = T.alloc_l1((2, TILE, TILE), "float16")
            w_l1 = T.alloc_l1((2, TILE, TILE), "float16")
            temp = T.alloc_ub((HALF, TILE), "float32")
            out_ub = T.alloc_ub((HALF, TILE), "float32")

            with T.Cube():
                for f in T.serial(2):
                    T.ascend_set_flag("MTE1_MTE2", f)
                T.ascend_set_flag("FIX_M", 0)
                for t in T.serial(TILES_PER_CORE):
                    tile = t * NUM_BLOCKS + bx
                    m = tile // N_TILES
                    n = tile % N_TILES
                    for kt in T.serial(K_TILES):
                        f = kt % 2
                        T.ascend_wait_flag("MTE1_MTE2", f)
                        T.copy(X[m * TILE, kt * TILE], x_l1[f, :, :])
                        T.copy(W[kt * TILE, n * TILE], w_l1[f, :, :])
                        T.ascend_set_flag("MTE2_MTE1", f)
                        T.ascend_wait_flag("MTE2_MTE1", f)
                        if kt == 0:
                            T.ascend_wait_flag("FIX_M", 0)
                        T.gemm(x_l1[f, :, :], w_l1[f, :, :], acc, clear_accum=(kt == 0))
                        T.ascend_set_flag("MTE1_MTE2", f)
                    T.ascend_set_flag("M_FIX", 0)
                    T.ascend_wait_flag("M_FIX", 0)
                    T.ascend_cross_core_wait_flag(4, "PIPE_FIX", 4)
                    T.ascend_cross_core_wait_flag(4, "PIPE_FIX", 20)
                    T.dual_copy(acc, temp)
                    T.ascend_cross_core_set_flag(4, "PIPE_FIX", 6)
                    T.ascend_cross_core_set_flag(4, "PIPE_FIX", 22)
                    T.ascend_set_flag("FIX_M", 0)
                for f in T.serial(2):
                    T.ascend_wait_flag("MTE1_MTE2", f)
                T.ascend_wait_flag("FIX_M", 0)
                T.ascend_cross_core_wait_flag(4, "PIPE_FIX", 4)
                T.ascend_cross_core_wait_flag(4, "PIPE_FIX", 20)

            with T.Vector() as sid:
                free_flag = 4 + sid * 16
                full_flag = 6 + sid * 16
                T.ascend_cross_core_set_flag(4, "PIPE_V", free_flag)
                T.ascend_set_flag("MTE3_V", 0)
                for t in T.serial(TILES_PER_CORE):
                    tile = t * NUM_BLOCKS + bx
                    m = tile // N_TILES
                    n = tile % N_TILES
                    T.ascend_cross_core_wait_flag(4, "PIPE_V", full_flag)
                    T.ascend_wait_flag("MTE3_V", 0)
                    for i, j in T.Parallel(HALF, TILE):
                        out_ub[i, j] = temp[i, j] * T.cast(sid + 1, "float32") + 0.5
                    T.ascend_cross_core_set_flag(4, "PIPE_V", free_flag)
                    T.ascend_set_flag("V_MTE3", 0)
                    T.ascend_wait_flag("V_MTE3", 0)
                    T.dual_copy(out_ub, C[m * TILE : (m + 1) * TILE, n * TILE : (n + 1) * TILE])
                    T.ascend_set_flag("MTE3_V", 0)
                T.ascend_wait_flag("MTE3_V", 0)

    return main


kernel = manual_mix_gemm()
