# flat_index_2d.py -- Y = X * W[col] + 1 where X and Y are an M x N matrix
# stored as flat 1-D tensors of M * N elements and W is one row of N.
#
# Habit: flat integer index math. The row and column are named in the loops
# and combined into one flat offset, `off = row * N + col`, as authors do for
# tensors passed flattened.

import tilelang
import tilelang.language as T


def flat_index_2d(M=16, N=2048, num_blocks=4, tile=512, dtype="float32"):
    rows_per_block = M // num_blocks
    num_col_tiles = N // tile

    @T.prim_func
    def main(
        X: T.Tensor((M * N,), dtype),
        W: T.Tensor((N,), dtype),
        Y: T.Tensor((M * N,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((tile,), dtype)
            w_ub = T.alloc_ub((tile,), dtype)
            y_ub = T.alloc_ub((tile,), dtype)

            for r in T.serial(rows_per_block):
                row = bx * rows_per_block + r
                for c in T.Pipelined(num_col_tiles, num_stages=2):
                    col = c * tile
                    off = row * N + col
                    T.copy(X[off : off + tile], x_ub)
                    T.copy(W[col : col + tile], w_ub)
                    for i in T.Parallel(tile):
                        y_ub[i] = x_ub[i] * w_ub[i] + 1.0
                    T.copy(y_ub, Y[off : off + tile])

    return main


if __name__ == "__main__":
    program = flat_index_2d()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
