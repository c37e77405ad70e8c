# softmax_let.py -- numerically stable row softmax of an M x N matrix.
#     Y[r, :] = exp(X[r, :] - max(X[r, :])) / sum(exp(X[r, :] - max(X[r, :])))
#
# Each block owns M // num_blocks rows and walks them block_rows at a time.
# Habit: the first row of the tile is named in the loop body,
#     row0 = bx * rows_per_block + rb * block_rows
# and the copies slice X[row0 : row0 + block_rows, :]. Twin of softmax_inline.py.

import tilelang
import tilelang.language as T


def softmax(M=64, N=256, num_blocks=4, block_rows=4, dtype="float32"):
    rows_per_block = M // num_blocks
    num_row_tiles = rows_per_block // block_rows

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

            for rb in T.Pipelined(num_row_tiles, num_stages=2):
                row0 = bx * rows_per_block + rb * block_rows
                T.copy(X[row0 : row0 + block_rows, :], x_ub)
                T.reduce_max(x_ub, row_max, dim=-1)
                for i, j in T.Parallel(block_rows, N):
                    e_ub[i, j] = T.exp(x_ub[i, j] - row_max[i])
                T.reduce_sum(e_ub, row_sum, dim=-1)
                for i, j in T.Parallel(block_rows, N):
                    y_ub[i, j] = e_ub[i, j] / row_sum[i]
                T.copy(y_ub, Y[row0 : row0 + block_rows, :])

    return main


if __name__ == "__main__":
    program = softmax()
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")
