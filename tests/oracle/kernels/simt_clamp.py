"""`T.clamp(x, min_val, max_val)` in a SIMT region, as upstream's
example_simtvf_per_token_cast_to_fp8.py writes its saturating quantisation:
TileLang defines it as T.min(T.max(x, min_val), max_val); a NaN stays NaN.

    Y[i] = min(max(X[i] / S[i // 16], -2.0), 1.5)            (float32)
    K[i] = min(max(int(X[i] * 4), -3), 5)                    (int32)
"""

import tilelang
import tilelang.language as T


def simt_clamp(N=256, lo=-2.0, hi=1.5):
    @T.prim_func
    def main(
        X: T.Tensor((N,), "float32"),
        S: T.Tensor((N // 16,), "float32"),
        Y: T.Tensor((N,), "float32"),
        K: T.Tensor((N,), "int32"),
    ):
        with T.Kernel(1) as _:
            x = T.alloc_shared((N,), "float32")
            s = T.alloc_shared((N // 16,), "float32")
            y = T.alloc_shared((N,), "float32")
            k = T.alloc_shared((N,), "int32")
            T.copy(X, x)
            T.copy(S, s)
            with T.SimtVF(threads=64):
                for i in T.Parallel(N):
                    y[i] = T.clamp(x[i] / s[i // 16], lo, hi)
                    k[i] = T.clamp(T.cast(x[i] * 4.0, "int32"), max_val=5, min_val=-3)
            T.copy(y, Y)
            T.copy(k, K)

    return main


if __name__ == "__main__":
    simt_clamp()
