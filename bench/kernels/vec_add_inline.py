# vec_add_inline.py -- C = A + B over a 1-D tensor, one contiguous chunk per block.
#
# Habit: the tile offset is written inline in every slice,
#     A[bx * block_N + s * sub_N : bx * block_N + s * sub_N + sub_N]
# Twin of vec_add_let.py, which names it `off` in the loop body.

import tilelang
import tilelang.language as T


def vec_add(N=16384, block_N=4096, sub_N=1024, dtype="float32"):
    num_blocks = N // block_N
    num_sub = block_N // sub_N

    @T.prim_func
    def main(
        A: T.Tensor((N,), dtype),
        B: T.Tensor((N,), dtype),
        C: T.Tensor((N,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            a_ub = T.alloc_ub((sub_N,), dtype)
            b_ub = T.alloc_ub((sub_N,), dtype)
            c_ub = T.alloc_ub((sub_N,), dtype)

            for s in T.Pipelined(num_sub, num_stages=2):
                T.copy(A[bx * block_N + s * sub_N : bx * block_N + s * sub_N + sub_N], a_ub)
                T.copy(B[bx * block_N + s * sub_N : bx * block_N + s * sub_N + sub_N], b_ub)
                for i in T.Parallel(sub_N):
                    c_ub[i] = a_ub[i] + b_ub[i]
                T.copy(c_ub, C[bx * block_N + s * sub_N : bx * block_N + s * sub_N + sub_N])

    return main


if __name__ == "__main__":
    program = vec_add()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
