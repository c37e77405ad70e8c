"""Row padding of a global -> UB copy (issue 7, upstream example_copy_pad_value):
an unaligned row of N float32 values (N * 4 bytes, not a multiple of 32) lands
in a UB row of N_pad columns, and the copy fills the row tail up to the next
32-byte boundary with the pad value: with `pad_value=` on the copy, or with
`data_select=True` after `T.ascend_set_copy_pad_value(v, dtype=...)`.

    B[:, :N] = A + 1;  B[:, N:N_pad] = fill + 1
"""

import tilelang
import tilelang.ascend.language as T


def pad_rows(M=8, N=30, N_pad=32, fill=-2.5, select=0):
    @T.prim_func
    def main(
        A: T.Tensor((M, N), T.float32),
        B: T.Tensor((M, N_pad), T.float32),
    ):
        with T.Kernel(2) as bid:
            half = M // 2
            a_ub = T.alloc_shared((half, N_pad), T.float32)
            b_ub = T.alloc_shared((half, N_pad), T.float32)
            if select:
                T.ascend_set_copy_pad_value(fill, dtype="float32")
                T.copy(A[bid * half : bid * half + half, :], a_ub[:, :N], data_select=True)
            else:
                T.copy(A[bid * half : bid * half + half, :], a_ub[:, :N], pad_value=fill)
            for i, j in T.Parallel(half, N_pad):
                b_ub[i, j] = a_ub[i, j] + 1.0
            T.copy(b_ub, B[bid * half : bid * half + half, :])

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(pad_rows(), out_idx=-1)
    print(kernel.get_kernel_source())
