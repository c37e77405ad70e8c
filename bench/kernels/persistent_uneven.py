# persistent_uneven.py -- Z = X * Y + X on an M x N matrix of 4 x 4 = 16 tiles
# handed out by a persistent loop over 3 cores (6, 5 and 5 tiles), so the
# last round is guarded for cores 1 and 2.
#
# Habit: the persistent tile loop with an uneven wave and named tile origins
#     r0 = tm * block_M      c0 = tn * block_N
# (the tile coordinates come decoded from the loop, the guard from T.Persistent).

import tilelang
import tilelang.language as T


def persistent_uneven(M=128, N=128, block_M=32, block_N=32, num_cores=3, dtype="float32"):
    tiles_m = M // block_M
    tiles_n = N // block_N

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
        Z: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_cores, is_npu=True) as bx:
            x_ub = T.alloc_ub((block_M, block_N), dtype)
            y_ub = T.alloc_ub((block_M, block_N), dtype)
            z_ub = T.alloc_ub((block_M, block_N), dtype)

            for tm, tn in T.Persistent([tiles_m, tiles_n], num_cores, bx, num_stages=2):
                r0 = tm * block_M
                c0 = tn * block_N
                T.copy(X[r0 : r0 + block_M, c0 : c0 + block_N], x_ub)
                T.copy(Y[r0 : r0 + block_M, c0 : c0 + block_N], y_ub)
                for i, j in T.Parallel(block_M, block_N):
                    z_ub[i, j] = x_ub[i, j] * y_ub[i, j] + x_ub[i, j]
                T.copy(z_ub, Z[r0 : r0 + block_M, c0 : c0 + block_N])

    return main


if __name__ == "__main__":
    program = persistent_uneven()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
