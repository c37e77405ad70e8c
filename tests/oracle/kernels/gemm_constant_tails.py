"""A GEMM on irregular shapes whose L1 tiles are rounded up to the fractal
sizes (upstream's test_gemm_padding_irregular_shapes.py): the copies name
whole tiles, `A[0:16, 0:64]` of a 15 x 47 tensor, so their constant regions
run past the tensors' ends. Each copy is a tail, clipped at the end with a
warning, and the rest of each L1 tile is zero, so the padded rows and K
columns add nothing and the padded rows and columns of C are 0.

    C[:M, :N] = A @ B^T      (A: M x K, B: N x K, float16; C: M_ALLOC x N_ALLOC, float32)
"""

import tilelang.language as T


def gemm_tails(M=15, N=13, K=47):
    m_alloc, n_alloc, k_alloc = 16, 16, 64

    @T.prim_func
    def main(
        A: T.Tensor((M, K), "float16"),
        B: T.Tensor((N, K), "float16"),
        C: T.Tensor((m_alloc, n_alloc), "float32"),
    ):
        with T.Kernel(1):
            a_l1 = T.alloc_l1((m_alloc, k_alloc), "float16")
            b_l1 = T.alloc_l1((n_alloc, k_alloc), "float16")
            a_l0 = T.alloc_l0a((m_alloc, k_alloc), "float16")
            b_l0 = T.alloc_l0b((n_alloc, k_alloc), "float16")
            acc = T.alloc_l0c((m_alloc, n_alloc), "float32")
            T.copy(A[0:m_alloc, 0:k_alloc], a_l1)
            T.copy(B[0:n_alloc, 0:k_alloc], b_l1)
            T.copy(a_l1, a_l0)
            T.copy(b_l1, b_l0)
            T.gemm(a_l0, b_l0, acc, transpose_B=True, clear_accum=True)
            T.copy(acc, C)

    return main
