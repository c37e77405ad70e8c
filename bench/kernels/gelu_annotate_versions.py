# gelu_annotate_versions.py -- Y = 0.5 * X * (1 + tanh(c * (X + 0.044715 X^3)))
# (tanh GELU) over a 1-D tensor, with the buffer versions pinned by the author.
#
# Habit: T.annotate_buffer_versions right after the allocations, the way the
# annotation API's documentation writes it: the two buffers that bridge pipes
# are fixed at 2 versions, the vector-only temporary at 1, and the output
# version index asks for the counter mode:
#     T.annotate_buffer_versions({x_ub: 2, u_ub: 1, y_ub: (2, "counter")})

import tilelang
import tilelang.language as T


def gelu(N=16384, block_N=4096, tile=1024, dtype="float32"):
    num_blocks = N // block_N
    num_tiles = block_N // tile
    c = 0.7978845608028654

    @T.prim_func
    def main(
        X: T.Tensor((N,), dtype),
        Y: T.Tensor((N,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((tile,), dtype)
            u_ub = T.alloc_ub((tile,), dtype)
            y_ub = T.alloc_ub((tile,), dtype)
            T.annotate_buffer_versions({x_ub: 2, u_ub: 1, y_ub: (2, "counter")})

            for t in T.Pipelined(num_tiles, num_stages=2):
                off = bx * block_N + t * tile
                T.copy(X[off : off + tile], x_ub)
                for i in T.Parallel(tile):
                    u_ub[i] = c * (x_ub[i] + 0.044715 * x_ub[i] * x_ub[i] * x_ub[i])
                for i in T.Parallel(tile):
                    y_ub[i] = 0.5 * x_ub[i] * (1.0 + T.tanh(u_ub[i]))
                T.copy(y_ub, Y[off : off + tile])

    return main


if __name__ == "__main__":
    program = gelu()
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")
