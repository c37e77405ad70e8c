# splitk_atomic.py -- split-K gemm with store-mode atomics: C += A @ B.
#
# Each of the `split` blocks computes the partial product of one K slice in
# its L0C accumulator and adds it into C through an atomic fixpipe store
# (T.set_atomic("add", ...) ... T.set_atomic_none()). C is read as well as
# written: its initial contents are part of the result. Blocks touch the same
# C elements, which is a race for plain stores and legal for atomic ones.
#
# `vec_rows_atomic` is the UB -> GM (MTE3) form: every block scales its row
# of X and adds it into the one output row O.

import tilelang
import tilelang.language as T


def splitk_atomic(M=32, N=32, K=128, split=4, block_K=16, dtype="float16", accum_dtype="float32"):
    assert K % split == 0 and (K // split) % block_K == 0, "K must split into whole slices"
    k_per_block = K // split
    k_tiles = k_per_block // block_K

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(split, is_npu=True) as bx:
            a_l1 = T.alloc_l1((M, block_K), dtype)
            b_l1 = T.alloc_l1((block_K, N), dtype)
            c_l0c = T.alloc_l0c((M, N), accum_dtype)

            for k in T.Pipelined(k_tiles, num_stages=2):
                k0 = bx * k_per_block + k * block_K
                T.copy(A[0:M, k0 : k0 + block_K], a_l1)
                T.copy(B[k0 : k0 + block_K, 0:N], b_l1)
                T.gemm(a_l1, b_l1, c_l0c, clear_accum=(k == 0))

            T.set_atomic("add", accum_dtype)
            T.copy(c_l0c, C)
            T.set_atomic_none()

    return main


def vec_rows_atomic(R=4, N=256, scale=0.5, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((R, N), dtype), O: T.Tensor((N,), dtype)):
        with T.Kernel(R, is_npu=True) as bx:
            x_ub = T.alloc_ub((N,), dtype)
            y_ub = T.alloc_ub((N,), dtype)
            T.copy(X[bx, 0:N], x_ub)
            for i in T.Parallel(N):
                y_ub[i] = x_ub[i] * scale
            T.set_atomic("add", dtype)
            T.copy(y_ub, O)
            T.set_atomic_none()

    return main
