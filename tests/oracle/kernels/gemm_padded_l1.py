"""A GEMM whose weight W (K x N) is loaded transposed into an L1 tile with
more rows than W has columns (N_PAD > N), the padded copy of upstream's
test_gemm_padded_copy.py: the copy fills the tile's top-left (N x K) corner
and leaves the padding rows alone; only the first N columns of the
accumulator are stored. The kernel is hand-synchronised (as upstream's), so
as-written simulates its own flags and auto/none/double replace them.

    C = X @ W     (X: M x K, W: K x N, float16; C: M x N, float32)
"""

import tilelang
import tilelang.language as T


def gemm_padded(M=64, K=32, N_PAD=48):
    N = N_PAD - 16

    @T.prim_func
    def main(
        X: T.Tensor((M, K), "float16"),
        W: T.Tensor((K, N), "float16"),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(1) as _:
            acc = T.alloc_l0c((M, N_PAD), "float32")
            x_l1 = T.alloc_l1((M, K), "float16")
            w_l1 = T.alloc_l1((N_PAD, K), "float16")
            T.copy(X[:, :], x_l1[:, :])
            T.copy(W[:, :], w_l1[:, :], transpose=True)
            T.ascend_set_flag("MTE2_MTE1", 0)
            T.ascend_wait_flag("MTE2_MTE1", 0)
            T.gemm(x_l1, w_l1, acc, transpose_B=True, clear_accum=True)
            T.ascend_set_flag("M_FIX", 0)
            T.ascend_wait_flag("M_FIX", 0)
            T.copy(acc[:, :N], C[:, :])

    return main


if __name__ == "__main__":
    gemm_padded()
