# nested_pipelined_lets.py -- Y[r, c] = X[r, c] * S[r] + Bias[c] on an M x N matrix.
#
# Habit: both loop levels pipelined, both naming their offsets. Each block owns
# a band of rows; an outer T.Pipelined(num_stages=2) walks its row groups
# (loading the group's scales), an inner T.Pipelined(num_stages=2) walks the
# column tiles of that group:
#     row = bx * rows_per_block + g * group_rows      (outer)
#     col = c * tile_N                                (inner)
# Same kernel as row_scale_nested.py except for the outer loop kind.

import tilelang
import tilelang.language as T


def row_scale_nested(M=64, N=1024, num_blocks=4, group_rows=4, tile_N=256, dtype="float32"):
    rows_per_block = M // num_blocks
    num_groups = rows_per_block // group_rows
    num_col_tiles = N // tile_N

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        S: T.Tensor((M,), dtype),
        Bias: T.Tensor((N,), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            s_ub = T.alloc_ub((group_rows,), dtype)
            b_ub = T.alloc_ub((tile_N,), dtype)
            x_ub = T.alloc_ub((group_rows, tile_N), dtype)
            y_ub = T.alloc_ub((group_rows, tile_N), dtype)

            for g in T.Pipelined(num_groups, num_stages=2):
                row = bx * rows_per_block + g * group_rows
                T.copy(S[row : row + group_rows], s_ub)
                for c in T.Pipelined(num_col_tiles, num_stages=2):
                    col = c * tile_N
                    T.copy(Bias[col : col + tile_N], b_ub)
                    T.copy(X[row : row + group_rows, col : col + tile_N], x_ub)
                    for i, j in T.Parallel(group_rows, tile_N):
                        y_ub[i, j] = x_ub[i, j] * s_ub[i] + b_ub[j]
                    T.copy(y_ub, Y[row : row + group_rows, col : col + tile_N])

    return main


if __name__ == "__main__":
    program = row_scale_nested()
    kernel = tilelang.compile(program, out_idx=[3], target="ascend")
