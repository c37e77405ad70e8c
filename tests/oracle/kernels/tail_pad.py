"""A tail the way authors write it: named offsets, the last tile of A and B
running past the end of the tensors, pad_value= on the loads so the whole tile
is defined, and a store clipped at the end of C.

    C[k] = A[k] * 2 + B[k] for k < N; the loads read 0.0 / 1.0 past the end
    S[t] = sum of the padded tile t (pad elements included)
"""

import tilelang
import tilelang.language as T


def tail_pad(N=3000, sub=1024, dtype="float32"):
    tiles = (N + sub - 1) // sub

    @T.prim_func
    def main(
        A: T.Tensor((N,), dtype),
        B: T.Tensor((N,), dtype),
        C: T.Tensor((N,), dtype),
        S: T.Tensor((tiles,), dtype),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            a_ub = T.alloc_ub((sub,), dtype)
            b_ub = T.alloc_ub((sub,), dtype)
            c_ub = T.alloc_ub((sub,), dtype)
            s_ub = T.alloc_ub((1,), dtype)
            for t in T.Pipelined(tiles, num_stages=2):
                off = t * sub
                T.copy(A[off : off + sub], a_ub, pad_value=0.0)
                T.copy(B[off : off + sub], b_ub, pad_value=1.0)
                for i in T.Parallel(sub):
                    c_ub[i] = a_ub[i] * 2.0 + b_ub[i]
                T.reduce_sum(c_ub, s_ub, dim=0)
                T.copy(c_ub, C[off : off + sub])
                T.copy(s_ub, S[t : t + 1])

    return main


if __name__ == "__main__":
    tail_pad()
