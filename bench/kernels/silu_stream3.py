# silu_stream3.py -- Y = X * sigmoid(X) over a 1-D tensor, streamed through UB
# with a three-stage pipeline.
#
# Habit: T.Pipelined(..., num_stages=3) on a long stream of small tiles, so up
# to three versions of each tile buffer may be in flight (load of tile s+2,
# compute of s+1, store of s). Offsets named `off = base + s * tile`.

import tilelang
import tilelang.language as T


def silu_stream(N=16384, num_blocks=2, tile=512, num_stages=3, dtype="float32"):
    block_N = N // num_blocks
    num_tiles = block_N // tile

    @T.prim_func
    def main(
        X: T.Tensor((N,), dtype),
        Y: T.Tensor((N,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((tile,), dtype)
            y_ub = T.alloc_ub((tile,), dtype)
            base = bx * block_N

            for s in T.Pipelined(num_tiles, num_stages=num_stages):
                off = base + s * tile
                T.copy(X[off : off + tile], x_ub)
                for i in T.Parallel(tile):
                    y_ub[i] = x_ub[i] * T.sigmoid(x_ub[i])
                T.copy(y_ub, Y[off : off + tile])

    return main


if __name__ == "__main__":
    program = silu_stream()
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")
