# gemm_l1.py -- C = A @ B with A: M x K, B: K x N (float16), C: M x N (float32).
#
# One block per block_M x block_N output tile. The K dimension is walked in
# block_K slices inside a T.Pipelined(num_stages=2) loop: the A and B slices
# go GM->L1 (MTE2) and T.gemm reads them straight from L1 (MTE1 + Cube) into
# an L0C accumulator. After the loop the accumulator is stored L0C->GM by the
# fixpipe (FIX).
#
# Scheduling feature: cube-side multi-buffering of L1 tiles. a_l1 and b_l1
# are written first in every k iteration, so the loop owns them. Expected: 2
# versions each, so the GM->L1 load of slice k+1 overlaps the gemm of slice
# k. c_l0c is read-modify-written across iterations (carried accumulator), so
# it is not eligible and keeps 1 version. Every dependency on the L1 operands
# of the gemm is synchronised on MTE1.
#
#   tilesched run examples/gemm_l1.py
#   tilesched run examples/gemm_l1.py -D block_K=64 -D num_stages=3

import tilelang
import tilelang.language as T
import torch


def gemm_l1(M=128, N=128, K=128, block_M=64, block_N=64, block_K=32, dtype="float16", accum_dtype="float32", num_stages=2):
    assert M % block_M == 0 and N % block_N == 0 and K % block_K == 0, "shapes must be tile multiples"
    m_tiles = M // block_M
    n_tiles = N // block_N
    k_tiles = K // block_K

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(m_tiles * n_tiles, is_npu=True) as bx:
            bm = bx // n_tiles
            bn = bx % n_tiles

            a_l1 = T.alloc_l1((block_M, block_K), dtype)
            b_l1 = T.alloc_l1((block_K, block_N), dtype)
            c_l0c = T.alloc_l0c((block_M, block_N), accum_dtype)

            for k in T.Pipelined(k_tiles, num_stages=num_stages):
                T.copy(A[bm * block_M : (bm + 1) * block_M, k * block_K : (k + 1) * block_K], a_l1)
                T.copy(B[k * block_K : (k + 1) * block_K, bn * block_N : (bn + 1) * block_N], b_l1)
                T.gemm(a_l1, b_l1, c_l0c, clear_accum=(k == 0))

            T.copy(c_l0c, C[bm * block_M : (bm + 1) * block_M, bn * block_N : (bn + 1) * block_N])

    return main


def ref_program(a, b):
    return a.float() @ b.float()


if __name__ == "__main__":
    torch.manual_seed(0)
    M, N, K = 128, 128, 128
    program = gemm_l1(M, N, K)
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")

    a = torch.randn(M, K, dtype=torch.float16).npu()
    b = torch.randn(K, N, dtype=torch.float16).npu()
    c = kernel(a, b)
    torch.npu.synchronize()

    torch.testing.assert_close(c.cpu(), ref_program(a, b).cpu(), rtol=1e-3, atol=1e-3)
    print("gemm_l1: PASS")
