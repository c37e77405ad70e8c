"""`with T.Stage(k)` manual stages, as upstream's example_manual_schedule.py
writes them, with branches whose values differ: even tiles load A then B,
odd tiles load them swapped; every third tile computes a different formula.

    x, y = (A, B) for even tiles, (B, A) for odd ones
    C[tile] = x * 2 + y      when tile % 3 == 0
            = x - y          otherwise
"""

import tilelang
import tilelang.language as T

TILE = 256
TILES = 6
BLOCKS = 2


def manual_stages():
    n = BLOCKS * TILES * TILE

    @T.prim_func
    def main(
        A: T.Tensor((n,), "float32"),
        B: T.Tensor((n,), "float32"),
        C: T.Tensor((n,), "float32"),
    ):
        with T.Kernel(BLOCKS) as bx:
            x = T.alloc_shared((TILE,), "float32")
            y = T.alloc_shared((TILE,), "float32")
            c = T.alloc_shared((TILE,), "float32")
            for tile in T.Pipelined(TILES, num_stages=2, annotations={"enable_offset": True}):
                begin = (bx * TILES + tile) * TILE
                if tile % 2 == 0:
                    with T.Stage(0):
                        T.copy(A[begin : begin + TILE], x)
                        T.copy(B[begin : begin + TILE], y)
                else:
                    with T.Stage(0):
                        T.copy(B[begin : begin + TILE], x)
                        T.copy(A[begin : begin + TILE], y)
                if tile % 3 == 0:
                    with T.Stage(1), T.SimtVF(threads=64):
                        for i in T.Parallel(TILE):
                            c[i] = x[i] * 2.0 + y[i]
                else:
                    with T.Stage(1), T.SimtVF(threads=64):
                        for i in T.Parallel(TILE):
                            c[i] = x[i] - y[i]
                with T.Stage(2):
                    T.copy(c, C[begin : begin + TILE])

    return main
