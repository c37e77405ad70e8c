# row_max_stream.py -- Mx[r] = max_j X[r, j] for rows too long for one tile:
# each row group is streamed in column tiles and the maximum is carried
# across them.
#
# Habit: a running reduction. The accumulator is filled with -inf before the
# column loop and every tile folds into it with T.reduce_max(..., clear=False);
# the row group and the column tile are named (`row`, `col`).

import tilelang
import tilelang.language as T


def row_max_stream(M=32, N=4096, num_blocks=4, group_rows=4, tile_N=512, dtype="float32"):
    rows_per_block = M // num_blocks
    num_groups = rows_per_block // group_rows
    num_col_tiles = N // tile_N

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Mx: T.Tensor((M,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((group_rows, tile_N), dtype)
            acc = T.alloc_ub((group_rows,), dtype)

            for g in T.serial(num_groups):
                row = bx * rows_per_block + g * group_rows
                T.fill(acc, -T.infinity(dtype))
                for c in T.Pipelined(num_col_tiles, num_stages=2):
                    col = c * tile_N
                    T.copy(X[row : row + group_rows, col : col + tile_N], x_ub)
                    T.reduce_max(x_ub, acc, dim=-1, clear=False)
                T.copy(acc, Mx[row : row + group_rows])

    return main


if __name__ == "__main__":
    program = row_max_stream()
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")
