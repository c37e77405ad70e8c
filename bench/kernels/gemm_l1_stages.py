# gemm_l1_stages.py -- bench/compare_bench only: examples/gemm_l1.py with the
# k loop's num_stages as a factory parameter, so the benchmark can show what a
# third L1 version buys. C = A @ B, A: M x K and B: K x N (float16), C: M x N
# (float32); one block per block_M x block_N tile; per k slice two GM->L1
# loads (MTE2) and a gemm from L1 (MTE1 + Cube) into L0C, stored by FIX.
#
#   tilesched run bench/kernels/gemm_l1_stages.py -D num_stages=3 --compare

import tilelang
import tilelang.language as T


def gemm_l1_stages(M=256, N=256, K=1024, block_M=64, block_N=64, block_K=32, num_stages=3,
                   dtype="float16", accum_dtype="float32"):
    m_tiles = M // block_M
    n_tiles = N // block_N
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

            a_l1 = T.alloc_l1((block_M, block_K), dtype)
            b_l1 = T.alloc_l1((block_K, block_N), dtype)
            c_l0c = T.alloc_l0c((block_M, block_N), accum_dtype)

            for k in T.Pipelined(k_tiles, num_stages=num_stages):
                T.copy(A[bm * block_M : (bm + 1) * block_M, k * block_K : (k + 1) * block_K], a_l1)
                T.copy(B[k * block_K : (k + 1) * block_K, bn * block_N : (bn + 1) * block_N], b_l1)
                T.gemm(a_l1, b_l1, c_l0c, clear_accum=(k == 0))

            T.copy(c_l0c, C[bm * block_M : (bm + 1) * block_M, bn * block_N : (bn + 1) * block_N])

    return main
