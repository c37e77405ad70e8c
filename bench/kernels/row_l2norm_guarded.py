# row_l2norm_guarded.py -- Y[r, :] = X[r, :] * rsqrt(sum_j X[r, j]^2 + eps)
# for M = 30 rows split over 4 blocks of ceildiv(30, 4) = 8 row slots.
#
# Habit: a guarded tail. The last block has only 6 real rows, so the work of
# a row sits under `if row < M:` inside the pipelined loop:
#     row = bx * rows_per_block + r
#     if row < M:
#         load, square, reduce, scale, store

import tilelang
import tilelang.language as T


def row_l2norm(M=30, N=512, num_blocks=4, eps=1e-6, dtype="float32"):
    rows_per_block = T.ceildiv(M, num_blocks)

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((1, N), dtype)
            sq_ub = T.alloc_ub((1, N), dtype)
            ss_ub = T.alloc_ub((1,), dtype)
            y_ub = T.alloc_ub((1, N), dtype)

            for r in T.Pipelined(rows_per_block, num_stages=2):
                row = bx * rows_per_block + r
                if row < M:
                    T.copy(X[row : row + 1, :], x_ub)
                    for i, j in T.Parallel(1, N):
                        sq_ub[i, j] = x_ub[i, j] * x_ub[i, j]
                    T.reduce_sum(sq_ub, ss_ub, dim=-1)
                    for i in T.Parallel(1):
                        ss_ub[i] = T.rsqrt(ss_ub[i] + eps)
                    for i, j in T.Parallel(1, N):
                        y_ub[i, j] = x_ub[i, j] * ss_ub[i]
                    T.copy(y_ub, Y[row : row + 1, :])

    return main


if __name__ == "__main__":
    program = row_l2norm()
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")
