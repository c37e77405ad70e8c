"""`while` loops with T.alloc_var counters, as upstream's
example_while_pipelined.py writes them: an outer loop over tiles, an inner one
whose bound k is read from memory at run time, one that never runs, and one
that counts down by 2.

    C[tile] = A[tile] + 1 + 2 + ... + k        (float32, in that order; k = K[0])
    D[blk]  = ((A[blk] * 2 + 5) * 2 + 3) * 2 + 1
"""

import tilelang
import tilelang.language as T

TILE = 128
TILES = 4
BLOCKS = 2


def while_loops():
    @T.prim_func
    def main(
        A: T.Tensor((BLOCKS * TILES * TILE,), "float32"),
        K: T.Tensor((1,), "int32"),
        C: T.Tensor((BLOCKS * TILES * TILE,), "float32"),
        D: T.Tensor((BLOCKS * TILE,), "float32"),
    ):
        with T.Kernel(BLOCKS) as bx:
            a = T.alloc_ub((TILE,), "float32")
            d = T.alloc_ub((TILE,), "float32")
            k = T.alloc_var("int32")
            k = K[0]
            t = T.alloc_var("int32")
            t = 0
            while t < TILES:
                base = (bx * TILES + t) * TILE
                T.copy(A[base : base + TILE], a)
                r = T.alloc_var("int32")
                r = 1
                while r <= k:
                    for i in T.Parallel(TILE):
                        a[i] = a[i] + T.cast(r, "float32")
                    r += 1
                never = T.alloc_var("int32")
                never = 0
                while never < k - 10:
                    for i in T.Parallel(TILE):
                        a[i] = 0.0
                    never = never + 1
                T.copy(a, C[base : base + TILE])
                t = t + 1
            T.copy(A[bx * TILE : (bx + 1) * TILE], d)
            u = T.alloc_var("int32")
            u = 5
            while u > 0:
                for i in T.Parallel(TILE):
                    d[i] = d[i] * 2.0 + T.cast(u, "float32")
                u -= 2
            T.copy(d, D[bx * TILE : (bx + 1) * TILE])

    return main


if __name__ == "__main__":
    while_loops()
