# row_sum_tail_pad.py -- S[r] = sum_j X[r, j] for an M x N matrix whose row
# count is not a multiple of the row tile (M = 100, tiles of 8 rows: the last
# tile holds 4 rows).
#
# Habit: a 2-D tail. The tile count comes from T.ceildiv, the first row is
# named (`row = t * block_rows`), the load of the last tile passes pad_value=0.0
# so the missing rows sum to 0, and both stores of the last tile run past the
# end of S / Y and are clipped. Y also gets 0.5 * x + the row sum.
# Reduction with T.reduce_sum over the last dimension.

import tilelang
import tilelang.language as T


def row_sum_tail(M=100, N=128, block_rows=8, dtype="float32"):
    num_tiles = T.ceildiv(M, block_rows)

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        S: T.Tensor((M,), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            x_ub = T.alloc_ub((block_rows, N), dtype)
            s_ub = T.alloc_ub((block_rows,), dtype)
            y_ub = T.alloc_ub((block_rows, N), dtype)

            for t in T.Pipelined(num_tiles, num_stages=2):
                row = t * block_rows
                T.copy(X[row : row + block_rows, :], x_ub, pad_value=0.0)
                T.reduce_sum(x_ub, s_ub, dim=-1)
                for i, j in T.Parallel(block_rows, N):
                    y_ub[i, j] = x_ub[i, j] * 0.5 + s_ub[i]
                T.copy(s_ub, S[row : row + block_rows])
                T.copy(y_ub, Y[row : row + block_rows, :])

    return main


if __name__ == "__main__":
    program = row_sum_tail()
    kernel = tilelang.compile(program, out_idx=[1, 2], target="ascend")
