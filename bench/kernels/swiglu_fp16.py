# swiglu_fp16.py -- Y = silu(G) * U element-wise for float16 G, U and Y,
# computed in float32.
#
# Habit: two inputs cast up to the accumulation dtype, the gate computed into a
# float32 temporary, the product cast back before the store; per-tile offset
# named (`off = bx * block_N + t * tile`).

import tilelang
import tilelang.language as T


def swiglu(N=16384, block_N=4096, tile=1024, dtype="float16"):
    accum_dtype = "float32"
    num_blocks = N // block_N
    num_tiles = block_N // tile

    @T.prim_func
    def main(
        G: T.Tensor((N,), dtype),
        U: T.Tensor((N,), dtype),
        Y: T.Tensor((N,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            g_ub = T.alloc_ub((tile,), dtype)
            u_ub = T.alloc_ub((tile,), dtype)
            s_ub = T.alloc_ub((tile,), accum_dtype)
            y_ub = T.alloc_ub((tile,), dtype)

            for t in T.Pipelined(num_tiles, num_stages=2):
                off = bx * block_N + t * tile
                T.copy(G[off : off + tile], g_ub)
                T.copy(U[off : off + tile], u_ub)
                for i in T.Parallel(tile):
                    s_ub[i] = T.cast(g_ub[i], accum_dtype) * T.sigmoid(T.cast(g_ub[i], accum_dtype))
                for i in T.Parallel(tile):
                    y_ub[i] = T.cast(s_ub[i] * T.cast(u_ub[i], accum_dtype), dtype)
                T.copy(y_ub, Y[off : off + tile])

    return main


if __name__ == "__main__":
    program = swiglu()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
