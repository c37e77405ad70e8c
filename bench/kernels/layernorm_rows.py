# layernorm_rows.py -- LayerNorm over the rows of an M x N matrix (no
# transposes, everything along the last dimension):
#     mu = mean(x)   var = mean((x - mu)^2)   y = (x - mu) * rsqrt(var + eps) * g + b
#
# Habit: a row kernel with two reductions and per-row scalars kept in small UB
# vectors; gamma / beta loaded once per block before the loop; the row offset
# named in the loop body (`row = bx * rows_per_block + t * block_rows`).

import tilelang
import tilelang.language as T


def layernorm(M=64, N=256, num_blocks=4, block_rows=4, eps=1e-5, dtype="float32"):
    rows_per_block = M // num_blocks
    num_tiles = rows_per_block // block_rows
    inv_n = 1.0 / N

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        G: T.Tensor((N,), dtype),
        Bt: T.Tensor((N,), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            g_ub = T.alloc_ub((N,), dtype)
            b_ub = T.alloc_ub((N,), dtype)
            x_ub = T.alloc_ub((block_rows, N), dtype)
            mu = T.alloc_ub((block_rows,), dtype)
            d_ub = T.alloc_ub((block_rows, N), dtype)
            sq = T.alloc_ub((block_rows, N), dtype)
            var = T.alloc_ub((block_rows,), dtype)
            y_ub = T.alloc_ub((block_rows, N), dtype)

            T.copy(G, g_ub)
            T.copy(Bt, b_ub)

            for t in T.Pipelined(num_tiles, num_stages=2):
                row = bx * rows_per_block + t * block_rows
                T.copy(X[row : row + block_rows, :], x_ub)
                T.reduce_sum(x_ub, mu, dim=-1)
                for i in T.Parallel(block_rows):
                    mu[i] = mu[i] * inv_n
                for i, j in T.Parallel(block_rows, N):
                    d_ub[i, j] = x_ub[i, j] - mu[i]
                for i, j in T.Parallel(block_rows, N):
                    sq[i, j] = d_ub[i, j] * d_ub[i, j]
                T.reduce_sum(sq, var, dim=-1)
                for i in T.Parallel(block_rows):
                    var[i] = T.rsqrt(var[i] * inv_n + eps)
                for i, j in T.Parallel(block_rows, N):
                    y_ub[i, j] = d_ub[i, j] * var[i] * g_ub[j] + b_ub[j]
                T.copy(y_ub, Y[row : row + block_rows, :])

    return main


if __name__ == "__main__":
    program = layernorm()
    kernel = tilelang.compile(program, out_idx=[3], target="ascend")
