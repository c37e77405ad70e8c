# vf_region.py -- GELU (tanh approximation) plus a scaled residual:
#     Y = scale * gelu(X) + R
#     gelu(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
#
# Each of the N // block_N blocks walks its chunk in tiles of `tile` elements
# in a T.Pipelined(num_stages=2) loop. Per tile: two GM->UB loads (MTE2); a
# SIMT vector-function region that moves x into a register fragment and writes
# gelu(x) to g_ub; a SIMD vector-function region that scales g_ub in a fragment
# and adds the residual into y_ub; one UB->GM store (MTE3).
#
# Scheduling feature: T.SimtVF / T.SimdVF regions. Each `with` region is one
# atomic V task whose latency and II are the given `latency=`, not the
# per-op cost model. The fragments allocated inside the regions are registers
# (local.fragment). They are never versioned or charged against UB. Because
# the kernel has a SimtVF region, the UB capacity drops to 216 KiB on
# ascend950. Expected: x_ub, r_ub, g_ub and y_ub are owned by the loop; x_ub,
# r_ub and y_ub get 2 versions. g_ub is V-only and may stay at 1.
#
#   tilesched run examples/vf_region.py
#   tilesched run examples/vf_region.py -D simt_latency=600

import tilelang
import tilelang.language as T
import torch


def gelu_residual(
    N=16384,
    block_N=4096,
    tile=1024,
    scale=0.5,
    threads=256,
    simt_latency=320,
    simd_latency=48,
    dtype="float32",
):
    accum_dtype = "float32"
    assert N % block_N == 0, "N must be a multiple of block_N"
    assert block_N % tile == 0, "block_N must be a multiple of tile"
    num_blocks = N // block_N
    num_tiles = block_N // tile
    sqrt_2_over_pi = 0.7978845608028654

    @T.prim_func
    def main(
        X: T.Tensor((N,), dtype),
        R: T.Tensor((N,), dtype),
        Y: T.Tensor((N,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((tile,), dtype)
            r_ub = T.alloc_ub((tile,), dtype)
            g_ub = T.alloc_ub((tile,), accum_dtype)
            y_ub = T.alloc_ub((tile,), dtype)

            for t in T.Pipelined(num_tiles, num_stages=2):
                T.copy(X[bx * block_N + t * tile : bx * block_N + (t + 1) * tile], x_ub)
                T.copy(R[bx * block_N + t * tile : bx * block_N + (t + 1) * tile], r_ub)

                with T.SimtVF(threads=threads, latency=simt_latency):
                    x_frag = T.alloc_fragment((tile,), accum_dtype)
                    for i in T.Parallel(tile):
                        x_frag[i] = T.cast(x_ub[i], accum_dtype)
                    for i in T.Parallel(tile):
                        g_ub[i] = 0.5 * x_frag[i] * (
                            1.0 + T.tanh(sqrt_2_over_pi * (x_frag[i] + 0.044715 * x_frag[i] * x_frag[i] * x_frag[i]))
                        )

                with T.SimdVF(latency=simd_latency):
                    acc = T.alloc_fragment((tile,), accum_dtype)
                    for i in T.Parallel(tile):
                        acc[i] = g_ub[i] * scale
                    for i in T.Parallel(tile):
                        y_ub[i] = T.cast(acc[i] + T.cast(r_ub[i], accum_dtype), dtype)

                T.copy(y_ub, Y[bx * block_N + t * tile : bx * block_N + (t + 1) * tile])

    return main


def ref_program(x, r, scale=0.5):
    g = torch.nn.functional.gelu(x.float(), approximate="tanh")
    return (scale * g + r.float()).to(x.dtype)


if __name__ == "__main__":
    torch.manual_seed(0)
    N = 16384
    program = gelu_residual(N)
    kernel = tilelang.compile(program, out_idx=[2], target="ascend")

    x = torch.randn(N, dtype=torch.float32).npu()
    r = torch.randn(N, dtype=torch.float32).npu()
    y = kernel(x, r)
    torch.npu.synchronize()

    torch.testing.assert_close(y.cpu(), ref_program(x, r).cpu(), rtol=1e-4, atol=1e-4)
    print("vf_region: PASS")
