# vec_add.py -- element-wise C = A + B over a 1-D tensor.
#
# Each of the N // block_N blocks owns one contiguous chunk of block_N
# elements and walks it in sub-tiles of sub_N elements inside a
# T.Pipelined(num_stages=2) loop: GM->UB loads (MTE2), one T.Parallel add (V),
# one UB->GM store (MTE3).
#
# Scheduling feature: plain automatic multi-buffering, the textbook case.
# Nothing is annotated. a_ub, b_ub and c_ub are each written first in every
# iteration, so the loop owns all three and AutoSchedule chooses their versions.
# Expected: 2 versions each in "iteration" mode (num_stages=2 is the upper
# bound), a flag ring of 2 ids per direction (MTE2<->V, V<->MTE3), and MTE2/V/MTE3
# overlapping from the second sub-tile on.
#
#   tilesched run examples/vec_add.py
#   tilesched run examples/vec_add.py -D N=32768 -D sub_N=2048

import tilelang
import tilelang.language as T
import torch


def vec_add(N=16384, block_N=4096, sub_N=1024, dtype="float32"):
    assert N % block_N == 0, "N must be a multiple of block_N"
    assert block_N % sub_N == 0, "block_N must be a multiple of sub_N"
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
            T.annotate_buffer_versions({a_ub: 2, b_ub: 2, c_ub: 2})

            for s in T.Pipelined(num_sub, num_stages=2):
                T.copy(A[bx * block_N + s * sub_N : bx * block_N + (s + 1) * sub_N], a_ub)
                T.copy(B[bx * block_N + s * sub_N : bx * block_N + (s + 1) * sub_N], b_ub)
                for i in T.Parallel(sub_N):
                    c_ub[i] = a_ub[i] + b_ub[i]
                T.copy(c_ub, C[bx * block_N + s * sub_N : bx * block_N + (s + 1) * sub_N])

    return main


def ref_program(a, b):
    return a + b


if __name__ == "__main__":
    torch.manual_seed(0)
    N = 16384
    program = vec_add(N)
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")

    a = torch.randn(N, dtype=torch.float32).npu()
    b = torch.randn(N, dtype=torch.float32).npu()
    c = kernel(a, b)
    torch.npu.synchronize()

    torch.testing.assert_close(c.cpu(), ref_program(a, b).cpu(), rtol=0, atol=0)
    print("vec_add: PASS")
