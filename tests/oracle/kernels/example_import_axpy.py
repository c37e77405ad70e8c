"""Row-tiled AXPY, O = X * alpha + Y, as a kernel module in the style of the
upstream Ascend examples (example_X.py): the factory, a torch reference and a
self-test block. tests/oracle/kernels/test_import_axpy.py imports it, as the
upstream pytest files import their example_X.py.
"""

import torch

import tilelang
import tilelang.language as T


def axpy_rows(M, N, block_M, alpha=2.0, sub_M=4, dtype="float32"):
    num_blocks = M // block_M

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
        O: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks) as bx:
            x_ub = T.alloc_shared((sub_M, N), dtype)
            y_ub = T.alloc_shared((sub_M, N), dtype)
            for k in T.Pipelined(block_M // sub_M, num_stages=2):
                row = bx * block_M + k * sub_M
                T.copy(X[row, 0], x_ub)
                T.copy(Y[row, 0], y_ub)
                for i, j in T.Parallel(sub_M, N):
                    x_ub[i, j] = x_ub[i, j] * alpha + y_ub[i, j]
                T.copy(x_ub, O[row, 0])

    return main


def ref_program(x, y, alpha=2.0):
    return x * alpha + y


if __name__ == "__main__":
    kernel = tilelang.compile(axpy_rows(1024, 1024, 128), out_idx=-1)
    x, y = torch.randn(1024, 1024).npu(), torch.randn(1024, 1024).npu()
    torch.testing.assert_close(kernel(x, y), ref_program(x, y))
