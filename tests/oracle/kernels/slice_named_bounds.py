"""Slices whose bounds are names bound in the kernel (issue 7 §3).

Written in the style of the upstream Ascend vector examples: each block walks
its tiles, names the tile's first and one-past-last element (`begin`, `end`)
and copies `A[begin:end]`. The extent `end - begin` is the constant `tile`
only through the names' values: tilesched simplifies it through the bindings.

    C = A * (A + B)          D[r, :] = A[r * cols : (r + 1) * cols] * 2
"""

import tilelang
import tilelang.language as T


def named_bounds(N=8192, num_blocks=4, tile=512, rows=16, dtype="float32"):
    total_tiles = N // (tile * num_blocks)
    cols = N // rows
    rows_per_block = rows // num_blocks

    @T.prim_func
    def main(
        A: T.Tensor((N,), dtype),
        B: T.Tensor((N,), dtype),
        C: T.Tensor((N,), dtype),
        D: T.Tensor((rows, cols), dtype),
    ):
        with T.Kernel(num_blocks) as bx:
            a = T.alloc_shared((tile,), dtype)
            b = T.alloc_shared((tile,), dtype)
            c = T.alloc_shared((tile,), dtype)
            row_ub = T.alloc_shared((1, cols), dtype)
            for it in T.Pipelined(total_tiles, num_stages=2):
                begin = (it * num_blocks + bx) * tile
                end = (it * num_blocks + bx + 1) * tile  # another formula, same extent
                T.copy(A[begin:end], a)
                half = begin + tile // 2
                stop = half + tile // 2  # through two names
                T.copy(B[begin:stop], b)
                with T.SimdVF():
                    for i in T.Parallel(tile):
                        c[i] = a[i] * (a[i] + b[i])
                T.copy(c, C[begin:end])
            for r in T.serial(rows_per_block):
                row = bx * rows_per_block + r
                first = row * cols
                last = first + cols
                T.copy(A[first:last], row_ub[0, :])
                with T.SimdVF():
                    for j in T.Parallel(cols):
                        row_ub[0, j] = row_ub[0, j] * 2.0
                row_end = row + 1
                T.copy(row_ub, D[row:row_end, :])

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(named_bounds(), out_idx=[2, 3])
    print(kernel.get_kernel_source())
