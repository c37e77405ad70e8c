# gemm_kloop_l1.py -- C = A @ B (float16 in, float32 out), the K loop
# accumulating in L0C straight from L1 operands.
#
# Habit: the usual cube K loop. The output tile is decoded from bx, the k
# offset is named in the loop body, and the accumulator is cleared by the
# first k tile only:
#     k0 = k * block_K
#     T.gemm(a_l1, b_l1, c_l0, clear_accum=(k == 0))
# followed by the fixpipe store L0C -> GM.

import tilelang
import tilelang.language as T


def gemm_kloop(M=128, N=128, K=256, block_M=64, block_N=64, block_K=64,
               dtype="float16", accum_dtype="float32", num_stages=2):
    n_tiles = N // block_N
    m_tiles = M // block_M
    k_tiles = K // block_K

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(m_tiles * n_tiles, is_npu=True) as bx:
            m0 = (bx // n_tiles) * block_M
            n0 = (bx % n_tiles) * block_N

            a_l1 = T.alloc_l1((block_M, block_K), dtype)
            b_l1 = T.alloc_l1((block_K, block_N), dtype)
            # pin: 'a_l1' has the 2 versions num_stages=2 of loop 'k' allows; a larger num_stages would lower the loop's II bound from 208 to 164
            # pin: 'b_l1' has the 2 versions num_stages=2 of loop 'k' allows; a larger num_stages would lower the loop's II bound from 208 to 164
            T.annotate_buffer_versions({a_l1: 2, b_l1: 2})
            c_l0 = T.alloc_l0c((block_M, block_N), accum_dtype)

            for k in T.Pipelined(k_tiles, num_stages=num_stages):
                k0 = k * block_K
                T.copy(A[m0 : m0 + block_M, k0 : k0 + block_K], a_l1)
                T.copy(B[k0 : k0 + block_K, n0 : n0 + block_N], b_l1)
                T.gemm(a_l1, b_l1, c_l0, clear_accum=(k == 0))

            T.copy(c_l0, C[m0 : m0 + block_M, n0 : n0 + block_N])

    return main


if __name__ == "__main__":
    program = gemm_kloop()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
