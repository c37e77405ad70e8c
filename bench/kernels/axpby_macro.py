# axpby_macro.py -- Z = a * X + b * Y over a 1-D tensor, with the per-tile work
# factored into a @T.macro.
#
# Habit: authors often pull the load / compute / store of one tile into a
# macro and call it from the pipelined loop with the named offset:
#     off = bx * block_N + s * tile
#     process_tile(off)

import tilelang
import tilelang.language as T


def axpby(N=16384, block_N=4096, tile=1024, a=0.75, b=-1.25, dtype="float32"):
    num_blocks = N // block_N
    num_tiles = block_N // tile

    @T.prim_func
    def main(
        X: T.Tensor((N,), dtype),
        Y: T.Tensor((N,), dtype),
        Z: T.Tensor((N,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((tile,), dtype)
            y_ub = T.alloc_ub((tile,), dtype)
            z_ub = T.alloc_ub((tile,), dtype)

            @T.macro
            def process_tile(off):
                T.copy(X[off : off + tile], x_ub)
                T.copy(Y[off : off + tile], y_ub)
                for i in T.Parallel(tile):
                    z_ub[i] = a * x_ub[i] + b * y_ub[i]
                T.copy(z_ub, Z[off : off + tile])

            for s in T.Pipelined(num_tiles, num_stages=2):
                off = bx * block_N + s * tile
                process_tile(off)

    return main


if __name__ == "__main__":
    program = axpby()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
