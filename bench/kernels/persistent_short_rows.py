# persistent_short_rows.py -- Y = exp(X - rowmax(X)) (unnormalised softmax
# numerator) over row tiles, with the short persistent loop form
#     with T.Persistent(tiles_per_block, num_stages=2) as i:
#
# Habit: the persistent body names the tile index and the row it covers,
#     tile = bx * tiles_per_block + i
#     row = tile * block_rows
# and slices with them.

import tilelang
import tilelang.language as T


def exp_shift_rows(M=128, N=128, block_rows=8, num_blocks=4, dtype="float32"):
    tiles_per_block = M // (block_rows * num_blocks)

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((block_rows, N), dtype)
            mx = T.alloc_ub((block_rows,), dtype)
            y_ub = T.alloc_ub((block_rows, N), dtype)

            with T.Persistent(tiles_per_block, num_stages=2) as i:
                tile = bx * tiles_per_block + i
                row = tile * block_rows
                T.copy(X[row : row + block_rows, :], x_ub)
                T.reduce_max(x_ub, mx, dim=-1)
                for r, c in T.Parallel(block_rows, N):
                    y_ub[r, c] = T.exp(x_ub[r, c] - mx[r])
                T.copy(y_ub, Y[row : row + block_rows, :])

    return main


if __name__ == "__main__":
    program = exp_shift_rows()
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")
