"""A GEMM whose A is stored K x M and loaded into L1 with `T.copy(...,
transpose=True)`, on shapes that are not multiples of the tiles (issue 7,
upstream test_tilelang_ascend_copy_oob.py): the edge tiles run past the ends
of A, B and C. The global side of such a copy is clipped at the tensor's end;
an L1 tile keeps zeros in the missing rows and columns, so the K tail adds
nothing; the store of C writes the in-bounds part only.

    C = A^T @ B^T     (A: K x M, B: N x K, float16; C: M x N, float32)
"""

import tilelang
import tilelang.ascend.language as T


def gemm_at(M=40, N=48, K=72, TILE_M=32, TILE_N=32, TILE_K=32):
    M_TILES = T.ceildiv(M, TILE_M)
    N_TILES = T.ceildiv(N, TILE_N)
    K_TILES = T.ceildiv(K, TILE_K)

    @T.prim_func
    def main(
        A: T.Tensor((K, M), "float16"),
        B: T.Tensor((N, K), "float16"),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(M_TILES * N_TILES) as bx:
            m_tile = bx // N_TILES
            n_tile = bx % N_TILES
            a_l1 = T.alloc_l1((TILE_M, TILE_K), "float16")
            b_l1 = T.alloc_l1((TILE_N, TILE_K), "float16")
            acc = T.alloc_l0c((TILE_M, TILE_N), "float32")
            for kt in T.Pipelined(K_TILES, num_stages=2):
                T.copy(A[kt * TILE_K : (kt + 1) * TILE_K, m_tile * TILE_M : (m_tile + 1) * TILE_M], a_l1, transpose=True)
                T.copy(B[n_tile * TILE_N : (n_tile + 1) * TILE_N, kt * TILE_K : (kt + 1) * TILE_K], b_l1)
                T.gemm(a_l1, b_l1, acc, transpose_B=True, clear_accum=(kt == 0))
            T.copy(acc, C[m_tile * TILE_M : (m_tile + 1) * TILE_M, n_tile * TILE_N : (n_tile + 1) * TILE_N])

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(gemm_at(), out_idx=-1)
    print(kernel.get_kernel_source())
