# persistent_tiles.py -- tiled 2-D AXPY, Z = alpha * X + Y, on an M x N matrix
# cut into block_M x block_N tiles and distributed by a persistent tile loop.
#
# The grid has num_cores blocks. Each one runs the long persistent form
#     for tm, tn in T.Persistent([tiles_m, tiles_n], num_cores, bx, num_stages=2):
# and visits linear tiles bx, bx + num_cores, ... of the tiles_m x tiles_n
# domain. The loop variable is decoded row-major into the (tm, tn) tile
# coordinate tuple. With the defaults (4 x 4 = 16 tiles, 3 cores), block 0 gets
# 6 tiles and blocks 1 and 2 get 5, so the last trip is guarded for some cores.
# Loads use the head-address form X[row, col], whose extents come from the UB
# tile. The store uses an explicit 2-D slice.
#
# Scheduling feature: T.Persistent with num_stages > 0 is a pipelined loop
# exactly like T.Pipelined. It owns x_ub, y_ub and z_ub. Because the loop's
# body is guarded at the end of the tile range, "auto" mode should pick the
# counter mode for their version index. Expected: 2 versions each; the GM
# loads are row-strided (block_N of N elements per row).
#
#   tilesched run examples/persistent_tiles.py
#   tilesched run examples/persistent_tiles.py -D num_cores=4

import tilelang
import tilelang.language as T
import torch


def tiled_axpy(M=128, N=128, block_M=32, block_N=32, num_cores=3, alpha=2.0, dtype="float32"):
    assert M % block_M == 0 and N % block_N == 0, "M and N must be tile multiples"
    tiles_m = M // block_M
    tiles_n = N // block_N

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
        Z: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_cores, is_npu=True) as bx:
            x_ub = T.alloc_ub((block_M, block_N), dtype)
            y_ub = T.alloc_ub((block_M, block_N), dtype)
            z_ub = T.alloc_ub((block_M, block_N), dtype)

            for tm, tn in T.Persistent([tiles_m, tiles_n], num_cores, bx, num_stages=2):
                T.copy(X[tm * block_M, tn * block_N], x_ub)
                T.copy(Y[tm * block_M, tn * block_N], y_ub)
                for i, j in T.Parallel(block_M, block_N):
                    z_ub[i, j] = alpha * x_ub[i, j] + y_ub[i, j]
                T.copy(z_ub, Z[tm * block_M : (tm + 1) * block_M, tn * block_N : (tn + 1) * block_N])

    return main


def ref_program(x, y, alpha=2.0):
    return alpha * x + y


if __name__ == "__main__":
    torch.manual_seed(0)
    M, N = 128, 128
    program = tiled_axpy(M, N)
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")

    x = torch.randn(M, N, dtype=torch.float32).npu()
    y = torch.randn(M, N, dtype=torch.float32).npu()
    z = kernel(x, y)
    torch.npu.synchronize()

    torch.testing.assert_close(z.cpu(), ref_program(x, y).cpu(), rtol=1e-6, atol=1e-6)
    print("persistent_tiles: PASS")
