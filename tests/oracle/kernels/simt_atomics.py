"""Per-thread atomics on global memory (`T.atomic_add/max/min`), the upstream
example_atomic.py pattern: every SIMT thread of every block updates a few
global counters. tilesched applies the blocks' updates in block-id order and a
block's threads in index order (docs/simulator.md), so a float sum is one
fold in that order.

    S[0] += sum of (bx * threads + tx) * 0.5 + 0.25   (atomic_add)
    S[1]  = max(S[1], bx * threads + tx)              (atomic_max)
    S[2]  = min(S[2], -(bx * threads + tx))           (atomic_min)
    H[k] += 1 for every thread with tx % 4 == k       (atomic_add, int32)
"""

import tilelang
import tilelang.ascend.language as T


def simt_atomics(num_blocks=4, threads=64):
    @T.prim_func
    def main(S: T.Tensor((3,), "float32"), H: T.Tensor((4,), "int32")):
        with T.Kernel(num_blocks) as bx:
            # One kind of update per tensor in a region: updates of different
            # kinds to one tensor do not commute, so tilesched checks them as
            # plain accesses.
            with T.SimtVF(threads=threads):
                for tx in T.Parallel(threads):
                    T.atomic_add(S[0], T.cast(bx * threads + tx, "float32") * 0.5 + 0.25)
                    T.atomic_add(H[tx % 4], 1)
            with T.SimtVF(threads=threads):
                for tx in T.Parallel(threads):
                    T.atomic_max(S[1], T.cast(bx * threads + tx, "float32"))
            with T.SimtVF(threads=threads):
                for tx in T.Parallel(threads):
                    T.atomic_min(S[2], -T.cast(bx * threads + tx, "float32"))

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(simt_atomics())
    print(kernel.get_kernel_source())
