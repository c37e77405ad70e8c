"""Three `with T.Kernel` launches in one prim_func, with different grids.

TileLang runs the launches one after another: each sees the global-memory
writes of the ones before it. Launch 0 writes B, launch 1 reads B and writes C,
launch 2 reads C and A and overwrites B (which launch 1 read).
"""

import tilelang
import tilelang.language as T


def launch_sequence(N=2048, block_N=512, sub_N=128, dtype="float32"):
    half = N // 2

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
        # Launch 0: B = A + 1, one block per block_N elements.
        with T.Kernel(N // block_N) as bx:
            x_ub = T.alloc_shared((sub_N,), dtype)
            for s in T.Pipelined(block_N // sub_N, num_stages=2):
                T.copy(A[bx * block_N + s * sub_N], x_ub)
                for i in T.Parallel(sub_N):
                    x_ub[i] = x_ub[i] + 1.0
                T.copy(x_ub, B[bx * block_N + s * sub_N])
        # Launch 1: C = B * 2, two blocks of half the tensor each.
        with T.Kernel(2) as by:
            x_ub = T.alloc_shared((sub_N,), dtype)
            for s in T.Pipelined(half // sub_N, num_stages=2):
                T.copy(B[by * half + s * sub_N], x_ub)
                for i in T.Parallel(sub_N):
                    x_ub[i] = x_ub[i] * 2.0
                T.copy(x_ub, C[by * half + s * sub_N])
        # Launch 2: B = C - A, one block.
        with T.Kernel(1):
            x_ub = T.alloc_shared((sub_N,), dtype)
            a_ub = T.alloc_shared((sub_N,), dtype)
            for s in T.serial(N // sub_N):
                T.copy(C[s * sub_N], x_ub)
                T.copy(A[s * sub_N], a_ub)
                for i in T.Parallel(sub_N):
                    x_ub[i] = x_ub[i] - a_ub[i]
                T.copy(x_ub, B[s * sub_N])

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(launch_sequence(), out_idx=[1, 2])
