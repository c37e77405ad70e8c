# softmax_pad_cols.py -- row softmax of an M x N matrix with N = 250, a row
# length that fills UB rows of N_pad = 256 only partly.
#
# Habit: a column tail padded on the load. The (block_rows, N) source lands in a
# (block_rows, N_pad) tile with pad_value=-inf, so the padding never wins the
# max and exp(-inf) = 0 adds nothing to the sum; only the first N columns of
# the result tile are stored. Row offset named (`row`).

import tilelang
import tilelang.language as T


def softmax_pad(M=32, N=250, N_pad=256, num_blocks=4, block_rows=4, dtype="float32"):
    rows_per_block = M // num_blocks
    num_tiles = rows_per_block // block_rows

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((block_rows, N_pad), dtype)
            mx = T.alloc_ub((block_rows,), dtype)
            e_ub = T.alloc_ub((block_rows, N_pad), dtype)
            sm = T.alloc_ub((block_rows,), dtype)
            y_ub = T.alloc_ub((block_rows, N_pad), dtype)

            for t in T.Pipelined(num_tiles, num_stages=2):
                row = bx * rows_per_block + t * block_rows
                T.copy(X[row : row + block_rows, :], x_ub, pad_value=-T.infinity(dtype))
                T.reduce_max(x_ub, mx, dim=-1)
                for i, j in T.Parallel(block_rows, N_pad):
                    e_ub[i, j] = T.exp(x_ub[i, j] - mx[i])
                T.reduce_sum(e_ub, sm, dim=-1)
                for i, j in T.Parallel(block_rows, N_pad):
                    y_ub[i, j] = e_ub[i, j] / sm[i]
                T.copy(y_ub[:, 0:N], Y[row : row + block_rows, :])

    return main


if __name__ == "__main__":
    program = softmax_pad()
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")
