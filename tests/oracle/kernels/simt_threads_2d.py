"""`T.SimtVF(threads=(x, y))`: a two-dimensional SIMT thread block (issue 7 §3).

The upstream multi-VF examples give some regions a thread tuple. tilesched
models no thread index, so a tuple means x*y threads; the values are the same
as with any thread count.

    E = (A * B + C) * D
"""

import tilelang
import tilelang.ascend.language as T


def ubuf_chain(N=1024, dtype="float32"):
    @T.prim_func
    def main(
        A: T.Tensor((N,), dtype),
        B: T.Tensor((N,), dtype),
        C: T.Tensor((N,), dtype),
        D: T.Tensor((N,), dtype),
        E: T.Tensor((N,), dtype),
    ):
        with T.Kernel(1) as _:
            a = T.alloc_shared((N,), dtype)
            b = T.alloc_shared((N,), dtype)
            t1 = T.alloc_shared((N,), dtype)
            t2 = T.alloc_shared((N,), dtype)
            T.copy(A, a)
            T.copy(B, b)
            with T.SimtVF(threads=128):
                for i in T.Parallel(N):
                    t1[i] = a[i] * b[i]
            T.copy(C, a)
            with T.SimtVF(threads=(16, 16)):
                for i in T.Parallel(N):
                    t2[i] = t1[i] + a[i]
            T.copy(D, b)
            with T.SimtVF(threads=(8, 4, 2)):
                for i in T.Parallel(N):
                    t1[i] = t2[i] * b[i]
            T.copy(t1, E)

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(ubuf_chain(), out_idx=-1)
    print(kernel.get_kernel_source())
