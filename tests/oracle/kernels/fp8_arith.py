"""Arithmetic on float8 values, as upstream's test_fp8_vecadd.py writes it in a
SIMT region: each operation converts its operands to float32, computes there
and rounds the result back to the format (the code generator's lane-wise
scalarization), so a chain rounds after every operation.

    S = A + B, D = A - B, P = A * B, Q = A / B, N = -A     (float8_e4m3fn)
    C = (A + B) * A                                         (two roundings)
    E = X + Y                                               (float8_e5m2)
"""

import tilelang
import tilelang.language as T


def fp8_arith(n=256):
    @T.prim_func
    def main(
        A: T.Tensor((n,), "float8_e4m3fn"),
        B: T.Tensor((n,), "float8_e4m3fn"),
        X: T.Tensor((n,), "float8_e5m2"),
        Y: T.Tensor((n,), "float8_e5m2"),
        S: T.Tensor((n,), "float8_e4m3fn"),
        D: T.Tensor((n,), "float8_e4m3fn"),
        P: T.Tensor((n,), "float8_e4m3fn"),
        Q: T.Tensor((n,), "float8_e4m3fn"),
        N: T.Tensor((n,), "float8_e4m3fn"),
        C: T.Tensor((n,), "float8_e4m3fn"),
        E: T.Tensor((n,), "float8_e5m2"),
    ):
        with T.Kernel(1):
            a_ub = T.alloc_shared((n,), "float8_e4m3fn")
            b_ub = T.alloc_shared((n,), "float8_e4m3fn")
            x_ub = T.alloc_shared((n,), "float8_e5m2")
            y_ub = T.alloc_shared((n,), "float8_e5m2")
            out = T.alloc_shared((6, n), "float8_e4m3fn")
            e_ub = T.alloc_shared((n,), "float8_e5m2")
            T.copy(A, a_ub)
            T.copy(B, b_ub)
            T.copy(X, x_ub)
            T.copy(Y, y_ub)
            with T.SimtVF(threads=128):
                for i in T.Parallel(n):
                    out[0, i] = a_ub[i] + b_ub[i]
                    out[1, i] = a_ub[i] - b_ub[i]
                    out[2, i] = a_ub[i] * b_ub[i]
                    out[3, i] = a_ub[i] / b_ub[i]
                    out[4, i] = -a_ub[i]
                    out[5, i] = (a_ub[i] + b_ub[i]) * a_ub[i]
                    e_ub[i] = x_ub[i] + y_ub[i]
            T.copy(out[0, :], S)
            T.copy(out[1, :], D)
            T.copy(out[2, :], P)
            T.copy(out[3, :], Q)
            T.copy(out[4, :], N)
            T.copy(out[5, :], C)
            T.copy(e_ub, E)

    return main


if __name__ == "__main__":
    fp8_arith()
