"""T.StridedTensor, T.assume about values the kernel computes, T.truncmod /
T.truncdiv and `**` in T.annotate_buffer_versions (issue 21), in the style
of upstream's example_compress.py.

The cache is a strided tensor whose leading stride is a T.dynamic size (its
rows may be padded); each output row reads the cache row a signed start
offset names, wrapped C-style (truncmod, then a Select into [0, rows)):

    s    = start[r]
    slot = truncmod(s + taps, rows);  slot += rows if slot < 0
    out[r, :] = cache[slot, :] * 2 + float(truncdiv(s, 3) + truncmod(-7, 3) * truncdiv(-7, 2))
"""

import tilelang.language as T


def ring_gather(rows=16, width=128, n_out=16, taps=5, double=True):
    cache_stride = T.dynamic("cache_stride")

    @T.prim_func
    def main(
        cache: T.StridedTensor((rows, width), (cache_stride, 1), "float32"),
        start: T.Tensor((n_out,), "int32"),
        out: T.Tensor((n_out, width), "float32"),
    ):
        T.assume(cache_stride % width == 0)
        with T.Kernel(2) as core:
            row_ub = T.alloc_shared((width,), "float32")
            T.annotate_buffer_versions({**({row_ub: 2} if double else {row_ub: 1})})
            for i in T.Pipelined(n_out // 2, num_stages=2):
                r = i * 2 + core
                s = T.int32(start[r])
                T.assume(-rows < s < rows)
                wrapped = T.truncmod(s + taps, rows)
                slot = T.Select(wrapped < 0, wrapped + rows, wrapped)
                T.assume(0 <= slot < rows)
                T.copy(cache[slot, :], row_ub)
                with T.SimdVF():
                    for k in T.Parallel(width):
                        row_ub[k] = row_ub[k] * 2.0 + T.cast(T.truncdiv(s, 3) + T.truncmod(-7, 3) * T.truncdiv(-7, 2), "float32")
                T.copy(row_ub, out[r, :])

    return main
