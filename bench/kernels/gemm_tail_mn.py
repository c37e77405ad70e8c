# gemm_tail_mn.py -- C = A @ B (float16 in, float32 out) for M = 100, N = 96,
# sizes that are not multiples of the 64 x 64 output tile.
#
# Habit: GEMM tails. The grid is T.ceildiv(M, block_M) * T.ceildiv(N, block_N);
# the edge tiles' GM -> L1 loads run past the end of A / B (the L1 tile is
# zero-filled there) and the fixpipe store L0C -> GM of an edge tile is
# clipped at the end of C. Offsets m0, n0, k0 named; clear_accum on k == 0.

import tilelang
import tilelang.language as T


def gemm_tail(M=100, N=96, K=128, block_M=64, block_N=64, block_K=32,
              dtype="float16", accum_dtype="float32"):
    m_tiles = T.ceildiv(M, block_M)
    n_tiles = T.ceildiv(N, block_N)
    k_tiles = K // block_K

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(m_tiles * n_tiles, is_npu=True) as bx:
            bm = bx // n_tiles
            bn = bx % n_tiles
            m0 = bm * block_M
            n0 = bn * block_N

            a_l1 = T.alloc_l1((block_M, block_K), dtype)
            b_l1 = T.alloc_l1((block_K, block_N), dtype)
            c_l0 = T.alloc_l0c((block_M, block_N), accum_dtype)

            for k in T.Pipelined(k_tiles, num_stages=2):
                k0 = k * block_K
                T.copy(A[m0 : m0 + block_M, k0 : k0 + block_K], a_l1)
                T.copy(B[k0 : k0 + block_K, n0 : n0 + block_N], b_l1)
                T.gemm(a_l1, b_l1, c_l0, clear_accum=(k == 0))

            T.copy(c_l0, C[m0 : m0 + block_M, n0 : n0 + block_N])

    return main


if __name__ == "__main__":
    program = gemm_tail()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
