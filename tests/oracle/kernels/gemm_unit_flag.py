"""`T.gemm(..., unit_flag_ctrl=...)` (issue 7 §3), in the style of the upstream GEMMs.

The unit flag lets FixPipe drain an L0C tile while the Cube finishes it; the
upstream kernels set 2 on the inner K steps and 3 on the last one. tilesched
accepts it and ignores it (its MMAD -> FIX synchronisation already orders
the drain), so the values are those of a plain GEMM.

    C = A @ B^T     (A: M x K, B: N x K, float16; C float32)
"""

import tilelang
import tilelang.ascend.language as T


def gemm_unit_flag(M=64, N=64, K=128, TILE_M=32, TILE_N=32, TILE_K=32, enable_unit_flag=True):
    M_TILES = M // TILE_M
    N_TILES = N // TILE_N
    K_TILES = K // TILE_K
    if enable_unit_flag:
        UF_2 = 2
        UF_3 = 3
    else:
        UF_2 = 0
        UF_3 = 0

    @T.prim_func
    def main(
        A: T.Tensor((M, K), "float16"),
        B: T.Tensor((N, K), "float16"),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(M_TILES * N_TILES) as bx:
            m_tile = bx // N_TILES
            n_tile = bx % N_TILES
            a_l1 = T.alloc_l1((TILE_M, TILE_K), "float16")
            b_l1 = T.alloc_l1((TILE_N, TILE_K), "float16")
            res = T.alloc_l0c((TILE_M, TILE_N), "float32")
            for kt in T.Pipelined(K_TILES, num_stages=2):
                T.copy(A[m_tile * TILE_M : (m_tile + 1) * TILE_M, kt * TILE_K : (kt + 1) * TILE_K], a_l1)
                T.copy(B[n_tile * TILE_N : (n_tile + 1) * TILE_N, kt * TILE_K : (kt + 1) * TILE_K], b_l1)
                T.gemm(a_l1, b_l1, res, transpose_B=True, clear_accum=(kt == 0), unit_flag_ctrl=T.Select(kt == K_TILES - 1, UF_3, UF_2))
            T.copy(res, C[m_tile * TILE_M : (m_tile + 1) * TILE_M, n_tile * TILE_N : (n_tile + 1) * TILE_N], unit_flag_ctrl=UF_3)

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(gemm_unit_flag(), out_idx=-1)
    print(kernel.get_kernel_source())
