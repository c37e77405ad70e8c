# vec_mul_tail_pad.py -- C = A * B + 1 over a 1-D tensor whose length is not a
# multiple of the tile (N = 3000, tiles of 1024: the last tile holds 952).
#
# Habit: the tail the way authors write it. The tile count is T.ceildiv(N, tile),
# the offset is named (`off = t * tile`), the loads pass pad_value= so the
# last tile is defined past the end of the tensor, and the store of the last
# tile simply runs past the end of C and is clipped there.

import tilelang
import tilelang.language as T


def vec_mul_tail(N=3000, tile=1024, dtype="float32"):
    num_tiles = T.ceildiv(N, tile)

    @T.prim_func
    def main(
        A: T.Tensor((N,), dtype),
        B: T.Tensor((N,), dtype),
        C: T.Tensor((N,), dtype),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            a_ub = T.alloc_ub((tile,), dtype)
            b_ub = T.alloc_ub((tile,), dtype)
            c_ub = T.alloc_ub((tile,), dtype)

            for t in T.Pipelined(num_tiles, num_stages=2):
                off = t * tile
                T.copy(A[off : off + tile], a_ub, pad_value=0.0)
                T.copy(B[off : off + tile], b_ub, pad_value=0.0)
                for i in T.Parallel(tile):
                    c_ub[i] = a_ub[i] * b_ub[i] + 1.0
                T.copy(c_ub, C[off : off + tile])

    return main


if __name__ == "__main__":
    program = vec_mul_tail()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
