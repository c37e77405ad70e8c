# persistent_let.py -- tiled 2-D AXPY, Z = alpha * X + Y, on an M x N matrix
# cut into block_M x block_N tiles handed out by a persistent tile loop:
#     for tm, tn in T.Persistent([tiles_m, tiles_n], num_cores, bx, num_stages=2)
# Habit: the tile's origin is named in the loop body,
#     r0 = tm * block_M      c0 = tn * block_N
# and every copy slices X[r0 : r0 + block_M, c0 : c0 + block_N].
# Twin of persistent_inline.py.

import tilelang
import tilelang.language as T


def tiled_axpy(M=128, N=128, block_M=32, block_N=32, num_cores=4, alpha=2.0, dtype="float32"):
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
                    z_ub[i, j] = alpha * x_ub[i, j] + y_ub[i, j]
                T.copy(z_ub, Z[r0 : r0 + block_M, c0 : c0 + block_N])

    return main


if __name__ == "__main__":
    program = tiled_axpy()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
