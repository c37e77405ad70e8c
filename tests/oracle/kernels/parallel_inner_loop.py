"""A serial loop inside a T.Parallel body, as upstream's plain-TileLang MHC
kernels (example_mhc_post.py, example_mhc_norm_fn.py) accumulate per element:
each element runs the loop in order; tilesched unrolls the constant loop into
the element-wise body. Fragments and global memory as those kernels use them,
with a T.annotate_layout and a getattr(T, "copy").

    X[n, i, h] = C[n, i] * D[n, h] + sum_k A[n, k, i] * B[n, k, h]   (k in order)
    R[n, h]    = sum over k = 3, 1 of B[n, k, h]   (a stepped range, from 0.0)
"""

import tilelang
import tilelang.language as T


def parallel_inner_loop(batch=2, mhc=4, hidden=64):
    @T.prim_func
    def main(
        A: T.Tensor((batch, mhc, mhc), "float32"),
        B: T.Tensor((batch, mhc, hidden), "float32"),
        C: T.Tensor((batch, mhc), "float32"),
        D: T.Tensor((batch, hidden), "float32"),
        X: T.Tensor((batch, mhc, hidden), "float32"),
        R: T.Tensor((batch, hidden), "float32"),
    ):
        with T.Kernel(batch) as n:
            a_local = T.alloc_fragment((mhc, mhc), "float32")
            b_local = T.alloc_fragment((mhc, hidden), "float32")
            c_local = T.alloc_fragment((mhc,), "float32")
            d_local = T.alloc_fragment((hidden,), "float32")
            x_local = T.alloc_fragment((mhc, hidden), "float32")
            r_local = T.alloc_fragment((hidden,), "float32")
            # A layout changes no value in tilesched (a warning says so), and
            # getattr(T, name) is T.name: as upstream's reduce tests write them.
            T.annotate_layout({x_local: T.Fragment((mhc, hidden), forward_fn=lambda i, h: (i, h))})
            getattr(T, "copy")(A[n, 0, 0], a_local)
            T.copy(B[n, 0, 0], b_local)
            T.copy(C[n, 0], c_local)
            T.copy(D[n, 0], d_local)
            for i, h in T.Parallel(mhc, hidden):
                x_local[i, h] = c_local[i] * d_local[h]
                for k in T.serial(mhc):
                    x_local[i, h] += a_local[k, i] * b_local[k, h]
            for h in T.Parallel(hidden):
                r_local[h] = 0.0
                for k in range(3, 0, -2):
                    r_local[h] += b_local[k, h]
            T.copy(x_local, X[n, 0, 0])
            T.copy(r_local, R[n, 0])

    return main


if __name__ == "__main__":
    parallel_inner_loop()
