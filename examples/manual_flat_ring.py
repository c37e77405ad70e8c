# manual_flat_ring.py -- causal two-tap moving average along a sequence:
#     Y[b, l, :] = 0.5 * (X[b, l, :] + X[b, l - 1, :]),  with X[b, -1, :] = 0
# for a batch of B sequences of L tiles of TILE elements (one block per
# sequence).
#
# The tiles sit in a flat 1-D UB buffer of 3 * TILE elements used as a ring
# of three slots. Slot s covers flat[s * TILE : s * TILE + TILE]. Iteration l
# loads tile l into slot l % 3 (MTE2), averages it with tile l - 1 kept in slot
# (l + 2) % 3 (V), and stores the result (MTE3). The ring is zeroed once before
# the loop, so at l = 0 the "previous tile" reads as zeros and no guard is
# needed.
#
# Scheduling feature: T.annotate_manual_multi_buffer({flat: 3}), the dict form
# of §2.2. flat has no leading version dimension, so the ring size is given
# explicitly. Each tile is read in two iterations (as current and as previous),
# which automatic versioning cannot express. AutoSchedule leaves flat's layout
# alone, analyses the slot ranges and finds, with ring size N = 3:
#   MTE2 write slot l % 3 -> V read as "current" in iteration l (distance 0)
#                         -> V read as "previous" in iteration l + 1 (distance 1)
#   V read of slot (l + 2) % 3 -> MTE2 overwrite in iteration l + 2 (WAR, distance 2)
# so the load of tile l + 1 may run while tile l is averaged. Expected: flat
# keeps shape (3 * TILE,) with source "manual" and versions 3; y_ub gets 2
# versions from the solver.
#
#   tilesched run examples/manual_flat_ring.py
#   tilesched compile examples/manual_flat_ring.py --emit scheduled

import tilelang
import tilelang.language as T
import torch


def moving_average2(B=4, L=16, TILE=256, dtype="float32"):
    @T.prim_func
    def main(
        X: T.Tensor((B, L, TILE), dtype),
        Y: T.Tensor((B, L, TILE), dtype),
    ):
        with T.Kernel(B, is_npu=True) as bx:
            flat = T.alloc_ub((3 * TILE,), dtype)
            y_ub = T.alloc_ub((TILE,), dtype)
            T.annotate_manual_multi_buffer({flat: 3})

            T.clear(flat)
            for l in T.Pipelined(L, num_stages=2):
                T.copy(X[bx, l, :], flat[(l % 3) * TILE : (l % 3) * TILE + TILE])
                for j in T.Parallel(TILE):
                    y_ub[j] = (flat[(l % 3) * TILE + j] + flat[((l + 2) % 3) * TILE + j]) * 0.5
                T.copy(y_ub, Y[bx, l, :])

    return main


def ref_program(x):
    prev = torch.nn.functional.pad(x, (0, 0, 1, 0))[:, :-1, :]
    return (x + prev) * 0.5


if __name__ == "__main__":
    torch.manual_seed(0)
    B, L, TILE = 4, 16, 256
    program = moving_average2(B, L, TILE)
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")

    x = torch.randn(B, L, TILE, dtype=torch.float32).npu()
    y = kernel(x)
    torch.npu.synchronize()

    torch.testing.assert_close(y.cpu(), ref_program(x.cpu()), rtol=1e-6, atol=1e-6)
    print("manual_flat_ring: PASS")
