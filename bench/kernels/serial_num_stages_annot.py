# serial_num_stages_annot.py -- Y = clamp(X * scale + shift, lo, hi) over a
# 1-D tensor.
#
# Habit: a T.serial loop made a software pipeline by its annotations dict
# instead of T.Pipelined:
#     for s in T.serial(num_tiles, annotations={"num_stages": 2}):
# together with a T.annotate_buffer_versions map that lets the solver choose
# ("iteration") for the input tile and pins the output tile to 2.

import tilelang
import tilelang.language as T


def clamp_affine(N=16384, block_N=8192, tile=1024, scale=1.5, shift=-0.25, lo=-1.0, hi=1.0, dtype="float32"):
    num_blocks = N // block_N
    num_tiles = block_N // tile

    @T.prim_func
    def main(
        X: T.Tensor((N,), dtype),
        Y: T.Tensor((N,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((tile,), dtype)
            y_ub = T.alloc_ub((tile,), dtype)
            T.annotate_buffer_versions({x_ub: "iteration", y_ub: 2})

            for s in T.serial(num_tiles, annotations={"num_stages": 2}):
                off = bx * block_N + s * tile
                T.copy(X[off : off + tile], x_ub)
                for i in T.Parallel(tile):
                    y_ub[i] = T.min(T.max(x_ub[i] * scale + shift, lo), hi)
                T.copy(y_ub, Y[off : off + tile])

    return main


if __name__ == "__main__":
    program = clamp_affine()
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")
