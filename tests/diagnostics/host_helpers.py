# Host helpers run at compile time in factory code: tilelang.next_power_of_2,
# tilelang.cdiv (also as tilelang.math.cdiv), math.ceil, math.log2, and small
# helper functions with for/while loops, break and continue.
import math

import tilelang
import tilelang.language as T
from tilelang.math import cdiv


def tiles_for(n, tile):
    count = 0
    covered = 0
    while covered < n:
        covered += tile
        count += 1
    return count


def largest_pow2_divisor(n):
    p = 1
    for i in range(1, 12):
        if n % (2**i) != 0:
            break
        p = 2**i
    return p


def odd_sum(limit):
    total = 0
    for k in range(limit):
        if k % 2 == 0:
            continue
        total += k
    return total


def norm_rows(d=3000, rows=100):
    TILE = tilelang.next_power_of_2(d)
    blocks = tilelang.cdiv(rows, 16)
    steps = math.ceil(d / 1024)
    depth = int(math.log2(TILE))
    n_tiles = tiles_for(d, 1024)
    p = largest_pow2_divisor(rows * 8)
    odd = odd_sum(7)

    @T.prim_func
    def main(X: T.Tensor((rows, d), "float32")):
        with T.Kernel(blocks) as bx:
            x = T.alloc_shared((TILE,), "float32")
            y = T.alloc_shared((depth, p), "float32")
            z = T.alloc_shared((steps + n_tiles,), "float32")
            w = T.alloc_shared((cdiv(d, 700), odd), "float32")

    return main

# Expected (checked with CPython, tilelang.math's definitions):
# next_power_of_2(3000) = 1 << (2999).bit_length() = 4096; cdiv(100, 16) = 7;
# ceil(3000 / 1024) = 3; log2(4096) = 12; tiles_for(3000, 1024) = 3;
# 800 = 2^5 * 25 → 32; cdiv(3000, 700) = 5; 1 + 3 + 5 = 9.
# CHECK: T.Kernel(7)
# CHECK: T.alloc_shared((4096,), "float32")
# CHECK: T.alloc_shared((12, 32), "float32")
# CHECK: T.alloc_shared((6,), "float32")
# CHECK: T.alloc_shared((5, 9), "float32")
