# softmax.py -- numerically stable row softmax of an M x N matrix:
#     Y[r, j] = exp(X[r, j] - max_k X[r, k]) / sum_k exp(X[r, k] - max_k X[r, k])
#
# Each block owns M // num_blocks rows and walks them in blocks of block_rows
# rows inside a T.Pipelined(num_stages=2) loop: GM->UB load (MTE2),
# T.reduce_max (V), exp of the shifted row (V), T.reduce_sum (V), division
# (V), UB->GM store (MTE3).
#
# Scheduling feature: a chain of dependent vector tasks (two reductions, a
# transcendental and a division) between one load and one store, so V is the
# busiest pipe and bounds the II. The loop owns x_ub, row_max, e_ub, row_sum and
# y_ub. Expected: x_ub and y_ub get 2 versions so the next row block's load and
# the previous block's store overlap the vector work; the V-only temporaries
# stay at 1 version.
#
#   tilesched run examples/softmax.py
#   tilesched run examples/softmax.py -D block_rows=8

import tilelang
import tilelang.language as T
import torch


def softmax(M=64, N=256, num_blocks=4, block_rows=4, dtype="float32"):
    assert M % num_blocks == 0, "M must be a multiple of num_blocks"
    rows_per_block = M // num_blocks
    assert rows_per_block % block_rows == 0, "rows per block must be a multiple of block_rows"
    num_row_blocks = rows_per_block // block_rows

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((block_rows, N), dtype)
            row_max = T.alloc_ub((block_rows,), dtype)
            e_ub = T.alloc_ub((block_rows, N), dtype)
            row_sum = T.alloc_ub((block_rows,), dtype)
            y_ub = T.alloc_ub((block_rows, N), dtype)

            for rb in T.Pipelined(num_row_blocks, num_stages=2):
                T.copy(
                    X[bx * rows_per_block + rb * block_rows : bx * rows_per_block + (rb + 1) * block_rows, :],
                    x_ub,
                )
                T.reduce_max(x_ub, row_max, dim=-1)
                for i, j in T.Parallel(block_rows, N):
                    e_ub[i, j] = T.exp(x_ub[i, j] - row_max[i])
                T.reduce_sum(e_ub, row_sum, dim=-1)
                for i, j in T.Parallel(block_rows, N):
                    y_ub[i, j] = e_ub[i, j] / row_sum[i]
                T.copy(
                    y_ub,
                    Y[bx * rows_per_block + rb * block_rows : bx * rows_per_block + (rb + 1) * block_rows, :],
                )

    return main


def ref_program(x):
    return torch.softmax(x.float(), dim=-1).to(x.dtype)


if __name__ == "__main__":
    torch.manual_seed(0)
    M, N = 64, 256
    program = softmax(M, N)
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")

    x = torch.randn(M, N, dtype=torch.float32).npu() * 4.0
    y = kernel(x)
    torch.npu.synchronize()

    torch.testing.assert_close(y.cpu(), ref_program(x).cpu(), rtol=1e-5, atol=1e-6)
    assert torch.allclose(y.sum(dim=-1).cpu(), torch.ones(M), atol=1e-5)
    print("softmax: PASS")
