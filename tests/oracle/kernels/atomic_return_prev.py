"""`old = T.atomic_add(C[k], v, return_prev=True)` in a SIMT region: every
thread of every block takes a ticket from a shared counter, as upstream's
test_atomic.py reads the value before the update. tilesched applies the
blocks' updates in block-id order and a block's threads in index order
(docs/simulator.md), so the tickets are a prefix sum in that order.

    thread t of block b, k = t % 4, v = t + 1:
    P[b * 16 + t] = C[k] before its update;  C[k] += v
    M[b * 16 + t] = max(M0[b * 16 + t], ...) via atomic_max's previous value:
                    Q[k] before Q[k] = max(Q[k], b * 16 + t)
"""

import tilelang
import tilelang.language as T


def atomic_return_prev(blocks=4, threads=16):
    @T.prim_func
    def main(
        C: T.Tensor((4,), "int32"),
        Q: T.Tensor((4,), "float32"),
        P: T.Tensor((blocks * threads,), "int32"),
        M: T.Tensor((blocks * threads,), "float32"),
    ):
        with T.Kernel(blocks) as bx:
            with T.SimtVF(threads=threads):
                for tx in T.Parallel(threads):
                    ticket = T.atomic_add(C[tx % 4], tx + 1, return_prev=True)
                    P[bx * threads + tx] = ticket
                    M[bx * threads + tx] = T.atomic_max(
                        Q[tx % 4], T.cast(bx * threads + tx, "float32"), return_prev=True
                    )

    return main


if __name__ == "__main__":
    atomic_return_prev()
