# gemm_bias_relu.py -- C = relu(A @ B + bias) (float16 operands, float32
# accumulation and output), with a vector epilogue in UB.
#
# Habit: cube K loop then epilogue. The K loop names k0 and clears the
# accumulator on the first k tile; after it the accumulator goes L0C -> UB
# through the fixpipe, the bias slice of the tile's columns (named n0) is added
# and clamped at zero on V, and the tile goes UB -> GM.

import tilelang
import tilelang.language as T


def gemm_bias_relu(M=128, N=128, K=128, block_M=64, block_N=64, block_K=32,
                   dtype="float16", accum_dtype="float32"):
    m_tiles = M // block_M
    n_tiles = N // block_N
    k_tiles = K // block_K

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        Bias: T.Tensor((N,), accum_dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(m_tiles * n_tiles, is_npu=True) as bx:
            m0 = (bx // n_tiles) * block_M
            n0 = (bx % n_tiles) * block_N

            a_l1 = T.alloc_l1((block_M, block_K), dtype)
            b_l1 = T.alloc_l1((block_K, block_N), dtype)
            c_l0 = T.alloc_l0c((block_M, block_N), accum_dtype)
            c_ub = T.alloc_ub((block_M, block_N), accum_dtype)
            bias_ub = T.alloc_ub((block_N,), accum_dtype)
            out_ub = T.alloc_ub((block_M, block_N), accum_dtype)

            T.copy(Bias[n0 : n0 + block_N], bias_ub)
            for k in T.Pipelined(k_tiles, num_stages=2):
                k0 = k * block_K
                T.copy(A[m0 : m0 + block_M, k0 : k0 + block_K], a_l1)
                T.copy(B[k0 : k0 + block_K, n0 : n0 + block_N], b_l1)
                T.gemm(a_l1, b_l1, c_l0, clear_accum=(k == 0))

            T.copy(c_l0, c_ub)
            for i, j in T.Parallel(block_M, block_N):
                out_ub[i, j] = T.max(c_ub[i, j] + bias_ub[j], 0.0)
            T.copy(out_ub, C[m0 : m0 + block_M, n0 : n0 + block_N])

    return main


if __name__ == "__main__":
    program = gemm_bias_relu()
    kernel = tilelang.compile(program, out_idx=[3], target="ascend")
