# tile_decode_bias.py -- Z[r, c] = relu(X[r, c] + Bias[c]) on an M x N matrix
# cut into block_M x block_N tiles, tiles dealt round-robin over the blocks.
#
# Habit: integer index math. The loop walks a linear tile index; the tile's
# row and column are decoded with // and %, then turned into offsets:
#     tile = t * num_blocks + bx
#     tm = tile // tiles_n        tn = tile % tiles_n
#     m0 = tm * block_M           n0 = tn * block_N

import tilelang
import tilelang.language as T


def tile_decode_bias(M=128, N=256, block_M=16, block_N=64, num_blocks=4, dtype="float32"):
    tiles_m = M // block_M
    tiles_n = N // block_N
    tiles_per_block = (tiles_m * tiles_n) // num_blocks

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Bias: T.Tensor((N,), dtype),
        Z: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((block_M, block_N), dtype)
            b_ub = T.alloc_ub((block_N,), dtype)
            z_ub = T.alloc_ub((block_M, block_N), dtype)

            for t in T.Pipelined(tiles_per_block, num_stages=2):
                tile = t * num_blocks + bx
                tm = tile // tiles_n
                tn = tile % tiles_n
                m0 = tm * block_M
                n0 = tn * block_N
                T.copy(X[m0 : m0 + block_M, n0 : n0 + block_N], x_ub)
                T.copy(Bias[n0 : n0 + block_N], b_ub)
                for i, j in T.Parallel(block_M, block_N):
                    z_ub[i, j] = T.max(x_ub[i, j] + b_ub[j], 0.0)
                T.copy(z_ub, Z[m0 : m0 + block_M, n0 : n0 + block_N])

    return main


if __name__ == "__main__":
    program = tile_decode_bias()
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")
