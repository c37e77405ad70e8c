# gemm_let.py -- C = A @ B (float16 in, float32 out) through L1 -> L0A/L0B -> L0C.
#
# One block per block_M x block_N output tile, the tile decoded from bx with
# // and %. Outer pipelined loop over block_K slices (GM -> L1), inner pipelined
# loop over sub_K sub-slices (L1 -> L0A/L0B, T.gemm into L0C, cleared on the
# first sub-slice of the first slice). L0C -> GM at the end.
# Habit: every offset is named in the loop body where it is used,
#     k0 = k * block_K          (outer)      kk = sk * sub_K      (inner)
# with m0 / n0 named once per block. Twin of gemm_inline.py.

import tilelang
import tilelang.language as T


def gemm(M=128, N=128, K=256, block_M=64, block_N=64, block_K=64, sub_K=32,
         dtype="float16", accum_dtype="float32"):
    m_tiles = M // block_M
    n_tiles = N // block_N
    k_tiles = K // block_K
    sub_steps = block_K // sub_K

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(m_tiles * n_tiles, is_npu=True) as bx:
            bm = bx // n_tiles
            bn = bx % n_tiles
            m0 = bm * block_M
            n0 = bn * block_N

            a_l1 = T.alloc_l1((block_M, block_K), dtype)
            b_l1 = T.alloc_l1((block_K, block_N), dtype)
            a_l0 = T.alloc_l0a((block_M, sub_K), dtype)
            b_l0 = T.alloc_l0b((sub_K, block_N), dtype)
            c_l0 = T.alloc_l0c((block_M, block_N), accum_dtype)

            for k in T.Pipelined(k_tiles, num_stages=2):
                k0 = k * block_K
                T.copy(A[m0 : m0 + block_M, k0 : k0 + block_K], a_l1)
                T.copy(B[k0 : k0 + block_K, n0 : n0 + block_N], b_l1)
                for sk in T.Pipelined(sub_steps, num_stages=2):
                    kk = sk * sub_K
                    T.copy(a_l1[:, kk : kk + sub_K], a_l0)
                    T.copy(b_l1[kk : kk + sub_K, :], b_l0)
                    T.gemm(a_l0, b_l0, c_l0, clear_accum=(k == 0 and sk == 0))

            T.copy(c_l0, C[m0 : m0 + block_M, n0 : n0 + block_N])

    return main


if __name__ == "__main__":
    program = gemm()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
