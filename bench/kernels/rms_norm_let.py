# rms_norm_let.py -- RMSNorm over the rows of an M x N matrix (float16 in/out,
# float32 arithmetic):  Y[r, :] = X[r, :] * rsqrt(mean(X[r, :]^2) + eps) * W
#
# The weight is loaded and widened once per block; row tiles of block_rows rows
# then run through a two-stage pipelined loop.
# Habit: the tile's first row is named in the loop body,
#     row = bx * rows_per_block + t * block_rows
# Twin of rms_norm_inline.py.

import tilelang
import tilelang.language as T


def rms_norm(M=64, N=256, num_blocks=4, block_rows=4, eps=1e-6, dtype="float16"):
    accum_dtype = "float32"
    rows_per_block = M // num_blocks
    num_row_tiles = rows_per_block // block_rows
    inv_n = 1.0 / N

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        W: T.Tensor((N,), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            w_ub = T.alloc_ub((N,), dtype)
            wf = T.alloc_ub((N,), accum_dtype)
            x_ub = T.alloc_ub((block_rows, N), dtype)
            xf = T.alloc_ub((block_rows, N), accum_dtype)
            sq = T.alloc_ub((block_rows, N), accum_dtype)
            ssum = T.alloc_ub((block_rows,), accum_dtype)
            rstd = T.alloc_ub((block_rows,), accum_dtype)
            y_ub = T.alloc_ub((block_rows, N), dtype)

            T.copy(W, w_ub)
            for j in T.Parallel(N):
                wf[j] = T.cast(w_ub[j], accum_dtype)

            for t in T.Pipelined(num_row_tiles, num_stages=2):
                row = bx * rows_per_block + t * block_rows
                T.copy(X[row : row + block_rows, :], x_ub)
                for i, j in T.Parallel(block_rows, N):
                    xf[i, j] = T.cast(x_ub[i, j], accum_dtype)
                for i, j in T.Parallel(block_rows, N):
                    sq[i, j] = xf[i, j] * xf[i, j]
                T.reduce_sum(sq, ssum, dim=-1)
                for i in T.Parallel(block_rows):
                    rstd[i] = T.rsqrt(ssum[i] * inv_n + eps)
                for i, j in T.Parallel(block_rows, N):
                    y_ub[i, j] = T.cast(xf[i, j] * rstd[i] * wf[j], dtype)
                T.copy(y_ub, Y[row : row + block_rows, :])

    return main


if __name__ == "__main__":
    program = rms_norm()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
