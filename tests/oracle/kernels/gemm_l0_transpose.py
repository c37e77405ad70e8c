"""A transposed L1 -> L0B load (upstream's effective-K gemm tests write it):
B arrives as (K, N), is copied to L1 as it is and transposed on the way into
L0B as (N, K), so the gemm with transpose_B=True computes A @ B; the A side
uses transpose=False, a plain copy.

    C = A @ B       A: 32 x 64, B: 64 x 48 (float16), C float32
"""

import tilelang
import tilelang.language as T


def gemm_l0_transpose(M=32, N=48, K=64):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(1):
            a_l1 = T.alloc_L1((M, K), "float16")
            b_l1 = T.alloc_L1((K, N), "float16")
            a_l0 = T.alloc_l0a((M, K), "float16")
            b_l0 = T.alloc_l0b((N, K), "float16")
            acc = T.alloc_L0C((M, N), "float32")
            T.copy(A, a_l1)
            T.copy(B, b_l1)
            T.copy(a_l1, a_l0, transpose=False)
            T.copy(b_l1, b_l0, transpose=True)
            T.gemm(a_l0, b_l0, acc, transpose_B=True, clear_accum=True)
            T.copy(acc, C)

    return main


if __name__ == "__main__":
    gemm_l0_transpose()
