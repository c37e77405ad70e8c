# ring_buffer.py -- Y = alpha * X + beta over a 1-D tensor, software-pipelined
# by hand with a two-slot ring buffer.
#
# Each of the N // block_N blocks walks its chunk in tiles of TILE elements.
# The loop runs one extra iteration: iteration l prefetches tile l into slot
# l % 2 of `buf` (guarded by `if l < n_tiles`) and computes tile l - 1 from the
# other slot (l + 1) % 2 (guarded by `if l > 0`), then stores it.
#
# Scheduling feature: T.annotate_manual_multi_buffer with a bare buffer; the
# ring size N = 2 is buf's leading dimension. AutoSchedule does not reshape
# buf; it analyses the hand-written slot indices and finds the distances
#   MTE2 write slot l % 2  ->  V read in iteration l + 1   (RAW, distance 1)
#   V read slot (l + 1) % 2 -> MTE2 write in iteration l + 1 (WAR, distance 1)
# and emits only the flag ring clocked by l. y_ub is an ordinary automatic
# buffer. Its epoch sits under `if l > 0`, so "auto" mode should pick the
# counter mode for it. Expected: buf stays (2, TILE) with source "manual", and
# y_ub gets 2 versions.
#
#   tilesched run examples/ring_buffer.py
#   tilesched compile examples/ring_buffer.py --emit scheduled

import tilelang
import tilelang.language as T
import torch


def ring_buffer(N=16384, block_N=4096, TILE=512, alpha=2.0, beta=1.0, dtype="float32"):
    assert N % block_N == 0, "N must be a multiple of block_N"
    assert block_N % TILE == 0, "block_N must be a multiple of TILE"
    num_blocks = N // block_N
    n_tiles = block_N // TILE

    @T.prim_func
    def main(
        X: T.Tensor((N,), dtype),
        Y: T.Tensor((N,), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            buf = T.alloc_ub((2, TILE), dtype)
            y_ub = T.alloc_ub((TILE,), dtype)
            T.annotate_manual_multi_buffer(buf)

            for l in T.Pipelined(n_tiles + 1, num_stages=2):
                # prologue/steady state: prefetch tile l into slot l % 2
                if l < n_tiles:
                    T.copy(X[bx * block_N + l * TILE : bx * block_N + (l + 1) * TILE], buf[l % 2, :])
                # steady state/epilogue: consume tile l - 1 from the other slot
                if l > 0:
                    for j in T.Parallel(TILE):
                        y_ub[j] = buf[(l + 1) % 2, j] * alpha + beta
                    T.copy(y_ub, Y[bx * block_N + (l - 1) * TILE : bx * block_N + l * TILE])

    return main


def ref_program(x, alpha=2.0, beta=1.0):
    return x * alpha + beta


if __name__ == "__main__":
    torch.manual_seed(0)
    N = 16384
    program = ring_buffer(N)
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")

    x = torch.randn(N, dtype=torch.float32).npu()
    y = kernel(x)
    torch.npu.synchronize()

    torch.testing.assert_close(y.cpu(), ref_program(x).cpu(), rtol=1e-6, atol=1e-6)
    print("ring_buffer: PASS")
