# tile2d_mn.py -- Z = (X - Y) * (X - Y) element-wise on an M x N matrix, each
# block taking a band of m tiles and walking all n tiles of each.
#
# Habit: a 2-D tile loop over (m, n) tiles with the tile origin named where
# it is known:
#     for mi in T.serial(m_per_block):
#         m0 = (bx * m_per_block + mi) * block_M
#         for ni in T.Pipelined(tiles_n, num_stages=2):
#             n0 = ni * block_N

import tilelang
import tilelang.language as T


def tile2d_mn(M=128, N=512, block_M=32, block_N=128, num_blocks=2, dtype="float32"):
    tiles_m = M // block_M
    tiles_n = N // block_N
    m_per_block = tiles_m // num_blocks

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
        Z: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((block_M, block_N), dtype)
            y_ub = T.alloc_ub((block_M, block_N), dtype)
            d_ub = T.alloc_ub((block_M, block_N), dtype)
            z_ub = T.alloc_ub((block_M, block_N), dtype)

            for mi in T.serial(m_per_block):
                m0 = (bx * m_per_block + mi) * block_M
                for ni in T.Pipelined(tiles_n, num_stages=2):
                    n0 = ni * block_N
                    T.copy(X[m0 : m0 + block_M, n0 : n0 + block_N], x_ub)
                    T.copy(Y[m0 : m0 + block_M, n0 : n0 + block_N], y_ub)
                    for i, j in T.Parallel(block_M, block_N):
                        d_ub[i, j] = x_ub[i, j] - y_ub[i, j]
                    for i, j in T.Parallel(block_M, block_N):
                        z_ub[i, j] = d_ub[i, j] * d_ub[i, j]
                    T.copy(z_ub, Z[m0 : m0 + block_M, n0 : n0 + block_N])

    return main


if __name__ == "__main__":
    program = tile2d_mn()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
