# row_stats_max_sum.py -- per-row maximum and sum of an M x N matrix:
#     Mx[r] = max_j X[r, j]        Sm[r] = sum_j X[r, j]
#
# Habit: reductions over the last dimension with T.reduce_max / T.reduce_sum
# into small per-row UB vectors, stored with a named row offset
#     row = bx * rows_per_block + t * block_rows

import tilelang
import tilelang.language as T


def row_stats(M=128, N=256, num_blocks=4, block_rows=8, dtype="float32"):
    rows_per_block = M // num_blocks
    num_tiles = rows_per_block // block_rows

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Mx: T.Tensor((M,), dtype),
        Sm: T.Tensor((M,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((block_rows, N), dtype)
            mx_ub = T.alloc_ub((block_rows,), dtype)
            sm_ub = T.alloc_ub((block_rows,), dtype)

            for t in T.Pipelined(num_tiles, num_stages=2):
                row = bx * rows_per_block + t * block_rows
                T.copy(X[row : row + block_rows, :], x_ub)
                T.reduce_max(x_ub, mx_ub, dim=-1)
                T.reduce_sum(x_ub, sm_ub, dim=-1)
                T.copy(mx_ub, Mx[row : row + block_rows])
                T.copy(sm_ub, Sm[row : row + block_rows])

    return main


if __name__ == "__main__":
    program = row_stats()
    kernel = tilelang.compile(program, out_idx=[1, 2], target="ascend")
