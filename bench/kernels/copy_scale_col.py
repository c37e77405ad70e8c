# copy_scale_col.py -- Y[r, :] = X[r, :] * scale for an M x N matrix, one
# row at a time in column tiles.
#
# Habit: the copy-scale-store loop with a scalar row index and a named column
# offset in the inner loop:
#     row = bx * rows_per_block + r
#     col = c * tile_N
#     T.copy(X[row, col : col + tile_N], x_ub)

import tilelang
import tilelang.language as T


def copy_scale(M=16, N=2048, num_blocks=4, tile_N=512, scale=0.125, dtype="float32"):
    rows_per_block = M // num_blocks
    num_col_tiles = N // tile_N

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((tile_N,), dtype)
            y_ub = T.alloc_ub((tile_N,), dtype)

            for r in T.serial(rows_per_block):
                row = bx * rows_per_block + r
                for c in T.Pipelined(num_col_tiles, num_stages=2):
                    col = c * tile_N
                    T.copy(X[row, col : col + tile_N], x_ub)
                    for j in T.Parallel(tile_N):
                        y_ub[j] = x_ub[j] * scale
                    T.copy(y_ub, Y[row, col : col + tile_N])

    return main


if __name__ == "__main__":
    program = copy_scale()
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")
