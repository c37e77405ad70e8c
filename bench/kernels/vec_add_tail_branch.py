# vec_add_tail_branch.py -- C = A + B over N = 3000 elements in tiles of 1024,
# the last (952-element) tile handled by its own branch.
#
# Habit: the explicit tail branch. Full tiles take the plain path; the last
# tile copies only `tail = N - (num_tiles - 1) * tile` elements into the head
# of the UB tiles and stores just those:
#     if t < num_tiles - 1:  ... full tile ...
#     else:                  ... A[off : off + tail] -> a_ub[0 : tail] ...

import tilelang
import tilelang.language as T


def vec_add_tail(N=3000, tile=1024, dtype="float32"):
    num_tiles = T.ceildiv(N, tile)
    tail = N - (num_tiles - 1) * tile

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
                if t < num_tiles - 1:
                    T.copy(A[off : off + tile], a_ub)
                    T.copy(B[off : off + tile], b_ub)
                    for i in T.Parallel(tile):
                        c_ub[i] = a_ub[i] + b_ub[i]
                    T.copy(c_ub, C[off : off + tile])
                else:
                    T.copy(A[off : off + tail], a_ub[0:tail])
                    T.copy(B[off : off + tail], b_ub[0:tail])
                    for i in T.Parallel(tail):
                        c_ub[i] = a_ub[i] + b_ub[i]
                    T.copy(c_ub[0:tail], C[off : off + tail])

    return main


if __name__ == "__main__":
    program = vec_add_tail()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
