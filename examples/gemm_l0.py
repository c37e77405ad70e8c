# gemm_l0.py -- C = A @ B^T with A: M x K, B: N x K (float16), C: M x N (float32),
# written through the whole cube memory hierarchy.
#
# One block per block_M x block_N output tile. Outer T.Pipelined k loop over
# block_K slices: A and B slices go GM->L1 (MTE2). Inner T.Pipelined loop over
# sub_K sub-slices of the L1 tiles: L1->L0A / L1->L0B operand loads (MTE1) and
# T.gemm on the L0A/L0B operands into the L0C accumulator (Cube, transpose_B).
# After both loops the accumulator goes L0C->UB through the fixpipe (FIX) and
# then UB->GM (MTE3) on the vector core.
#
# Scheduling feature: nested pipelined loops with owners at two levels. The
# outer k loop owns a_l1 / b_l1 (written first by its GM->L1 copies); the
# inner sk loop owns a_l0 / b_l0 (written first by its L1->L0 copies). The inner
# loop is solved first and then appears to the outer one as a single task.
# Expected: 2 versions for a_l1, b_l1, a_l0, b_l0; c_l0c is a carried
# accumulator (1 version); c_ub lives outside every loop (1 version).
#
#   tilesched run examples/gemm_l0.py
#   tilesched compile examples/gemm_l0.py --emit scheduled

import tilelang
import tilelang.language as T
import torch


def gemm_l0(M=128, N=64, K=256, block_M=64, block_N=64, block_K=64, sub_K=32, dtype="float16", accum_dtype="float32"):
    assert M % block_M == 0 and N % block_N == 0 and K % block_K == 0, "shapes must be tile multiples"
    assert block_K % sub_K == 0, "block_K must be a multiple of sub_K"
    m_tiles = M // block_M
    n_tiles = N // block_N
    k_tiles = K // block_K
    sub_steps = block_K // sub_K

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K), dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        # A mixed kernel: the cube core computes the tile, one vector core
        # (sids=1: AIV 0) stores it. Under a plain T.Kernel both AIVs would
        # run the store while the fixpipe fills AIV 0's UB only.
        with T.MixedKernel(m_tiles * n_tiles, sids=1, is_npu=True) as (bx, _sid):
            bm = bx // n_tiles
            bn = bx % n_tiles

            a_l1 = T.alloc_l1((block_M, block_K), dtype)
            b_l1 = T.alloc_l1((block_N, block_K), dtype)
            a_l0 = T.alloc_l0a((block_M, sub_K), dtype)
            b_l0 = T.alloc_l0b((block_N, sub_K), dtype)
            c_l0c = T.alloc_l0c((block_M, block_N), accum_dtype)
            c_ub = T.alloc_ub((block_M, block_N), accum_dtype)

            for k in T.Pipelined(k_tiles, num_stages=2):
                # GM -> L1
                T.copy(A[bm * block_M : (bm + 1) * block_M, k * block_K : (k + 1) * block_K], a_l1)
                T.copy(B[bn * block_N : (bn + 1) * block_N, k * block_K : (k + 1) * block_K], b_l1)
                # L1 -> L0A / L0B, then cube
                for sk in T.Pipelined(sub_steps, num_stages=2):
                    T.copy(a_l1[:, sk * sub_K : (sk + 1) * sub_K], a_l0)
                    T.copy(b_l1[:, sk * sub_K : (sk + 1) * sub_K], b_l0)
                    T.gemm(a_l0, b_l0, c_l0c, transpose_B=True, clear_accum=(k == 0 and sk == 0))

            # fixpipe L0C -> UB, then UB -> GM
            T.copy(c_l0c, c_ub)
            T.copy(c_ub, C[bm * block_M : (bm + 1) * block_M, bn * block_N : (bn + 1) * block_N])

    return main


def ref_program(a, b):
    return a.float() @ b.float().T


if __name__ == "__main__":
    torch.manual_seed(0)
    M, N, K = 128, 64, 256
    program = gemm_l0(M, N, K)
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")

    a = torch.randn(M, K, dtype=torch.float16).npu()
    b = torch.randn(N, K, dtype=torch.float16).npu()
    c = kernel(a, b)
    torch.npu.synchronize()

    torch.testing.assert_close(c.cpu(), ref_program(a, b).cpu(), rtol=1e-3, atol=1e-3)
    print("gemm_l0: PASS")
