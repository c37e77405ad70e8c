# axpy_scalar_alpha.py -- Z = alpha * X + Y with alpha a run-time scalar
# parameter of the kernel (`alpha: T.float32`), not a compile-time constant.
#
# Habit: an element-wise kernel with two inputs and a scalar argument; the
# chunk base of the block and the tile offset are both named:
#     base = bx * block_N           (per block)
#     off = base + s * sub_N        (per tile)

import tilelang
import tilelang.language as T


def axpy(N=16384, block_N=4096, sub_N=1024, dtype="float32"):
    num_blocks = N // block_N
    num_sub = block_N // sub_N

    @T.prim_func
    def main(
        X: T.Tensor((N,), dtype),
        Y: T.Tensor((N,), dtype),
        Z: T.Tensor((N,), dtype),
        alpha: T.float32,
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((sub_N,), dtype)
            y_ub = T.alloc_ub((sub_N,), dtype)
            z_ub = T.alloc_ub((sub_N,), dtype)
            base = bx * block_N

            for s in T.Pipelined(num_sub, num_stages=2):
                off = base + s * sub_N
                T.copy(X[off : off + sub_N], x_ub)
                T.copy(Y[off : off + sub_N], y_ub)
                for i in T.Parallel(sub_N):
                    z_ub[i] = alpha * x_ub[i] + y_ub[i]
                T.copy(z_ub, Z[off : off + sub_N])

    return main


if __name__ == "__main__":
    program = axpy()
    kernel = tilelang.compile(program, target="ascend")
