"""Spellings and host helpers of upstream Ascend files (issue 7 §3), end to end.

Factory code sizes the tile with `tilelang.next_power_of_2`, `tilelang.cdiv`
and `math.ceil`, and a small helper with a loop; the parameters use the
`T.Tensor[shape, dtype]` subscript form; the kernel runs under
`with T.Kernel(n):` without `as` (one block) over `T.Serial` tiles, views a tile
through `T.reshape`, casts with `.astype` and `T.Cast`, and calls a `@T.macro`
that returns two values.

    Y[i] = (A[i] + B[i]) * 0.5 + float(int(A[i] * 4))    (int cast truncates)
    S[t] = sum over tile t of A[i] * B[i]
"""

import math

import tilelang
import tilelang.language as T


def tiles_for(n, tile):
    # A small host helper with a loop, as upstream factories write them.
    count = 0
    done = 0
    for _ in range(n):
        if done < n:
            done = done + tile
            count = count + 1
    return count


def host_helpers(N=3000, want=300, dtype="float32"):
    tile = tilelang.next_power_of_2(want)  # 512
    n_tiles = tilelang.cdiv(N, tile)  # 6
    assert n_tiles == math.ceil(N / tile) == tiles_for(N, tile)
    padded = n_tiles * tile
    rows = tile // 32

    @T.macro
    def halve_sum(x, y, acc):
        for i in T.Parallel(tile):
            x[i] = (x[i] + y[i]) * 0.5
        return x, acc

    @T.prim_func
    def main(A: T.Tensor[(padded,), dtype], B: T.Tensor[(padded,), dtype],
             Y: T.Tensor[(padded,), dtype], S: T.Tensor[(n_tiles, 1), dtype]):
        with T.Kernel(1):
            a = T.alloc_ub((tile,), dtype)
            b = T.alloc_ub((tile,), dtype)
            p = T.alloc_ub((tile,), dtype)
            q = T.alloc_ub((tile,), dtype)
            y = T.alloc_ub((tile,), dtype)
            s = T.alloc_ub((1,), dtype)
            part = T.alloc_ub((rows,), dtype)
            p2 = T.reshape(p, (rows, 32))
            for t in T.Serial(n_tiles):
                T.copy(A[t * tile], a)
                T.copy(B[t * tile], b)
                for i in T.Parallel(tile):
                    p[i] = a[i] * b[i]
                    q[i] = T.Cast("float32", (a[i] * 4.0).astype("int32"))
                T.reduce_sum(p2, part, dim=1)
                T.reduce_sum(part, s, dim=0)
                h, total = halve_sum(a, b, s)
                for i in T.Parallel(tile):
                    y[i] = h[i] + q[i]
                T.copy(y, Y[t * tile])
                T.copy(total, S[t, 0])

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(host_helpers(), out_idx=[2, 3])
