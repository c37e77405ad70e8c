# annotate_versions.py -- row-tiled SiLU, Y = X * sigmoid(X), written in the
# form the annotation API's documentation uses.
#
# Every block runs the short persistent form
#     with T.Persistent(tiles_per_block, num_stages=4) as i:
# a pipelined loop over tiles_per_block row tiles. Tile i of block bx covers
# rows (bx * tiles_per_block + i) * block_M ... + block_M. One iteration: GM->UB
# load into `fixed` (MTE2), SiLU into `inferred` (V), UB->GM store (MTE3).
#
# Scheduling feature: T.annotate_buffer_versions with two kinds of values:
#   fixed:    (2, "counter")  -> exactly 2 versions, charged against UB even if
#                                the solver would choose otherwise; the version
#                                index is a 32-bit counter advanced after each
#                                active epoch.
#   inferred: "iteration"     -> the solver picks the count (1..num_stages = 4),
#                                and the index is the flattened iteration mod N.
# Expected: fixed = 2 (source "fixed", mode "counter"); inferred = the solver's
# choice, most likely 2 (source "solver", mode "iteration"). The scheduled IR
# and the JSON report show the written-back map, for example
# {fixed: 2, inferred: 2}.
#
#   tilesched run examples/annotate_versions.py
#   tilesched compile examples/annotate_versions.py --emit report-json

import tilelang
import tilelang.language as T
import torch


def silu_rows(M=256, N=64, block_M=8, num_blocks=4, num_stages=4, dtype="float32"):
    assert M % (block_M * num_blocks) == 0, "M must be a multiple of block_M * num_blocks"
    tiles_per_block = M // (block_M * num_blocks)

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            fixed = T.alloc_ub((block_M, N), dtype)
            inferred = T.alloc_ub((block_M, N), dtype)
            T.annotate_buffer_versions({fixed: (2, "counter"), inferred: (3, "iteration")})

            with T.Persistent(tiles_per_block, num_stages=num_stages) as i:
                T.copy(
                    X[(bx * tiles_per_block + i) * block_M : (bx * tiles_per_block + i + 1) * block_M, :],
                    fixed,
                )
                for r, c in T.Parallel(block_M, N):
                    inferred[r, c] = fixed[r, c] * T.sigmoid(fixed[r, c])
                T.copy(
                    inferred,
                    Y[(bx * tiles_per_block + i) * block_M : (bx * tiles_per_block + i + 1) * block_M, :],
                )

    return main


def ref_program(x):
    return torch.nn.functional.silu(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    M, N = 256, 64
    program = silu_rows(M, N)
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")

    x = torch.randn(M, N, dtype=torch.float32).npu()
    y = kernel(x)
    torch.npu.synchronize()

    torch.testing.assert_close(y.cpu(), ref_program(x).cpu(), rtol=1e-5, atol=1e-5)
    print("annotate_versions: PASS")
