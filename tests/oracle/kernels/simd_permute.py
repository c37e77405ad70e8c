"""More T.simd intrinsics, as upstream's SIMD examples use them: interleaving
two registers and undoing it (vintlv / vdintlv, unpacked into two names), and
the fused lane-wise forms vabsdif, vexpdif and vlrelu.

    I0 = (x0 y0 x1 y1 ... x31 y31), I1 = (x32 y32 ... x63 y63)
    R0, R1 = X, Y (the round trip)
    D = |X - Y|, E = exp(X - Y), L = X >= 0 ? X : 0.25 X      (float32, 64 lanes)
"""

import tilelang
import tilelang.language as T


def simd_permute():
    @T.prim_func
    def main(
        X: T.Tensor((64,), "float32"),
        Y: T.Tensor((64,), "float32"),
        I0: T.Tensor((64,), "float32"),
        I1: T.Tensor((64,), "float32"),
        R0: T.Tensor((64,), "float32"),
        R1: T.Tensor((64,), "float32"),
        D: T.Tensor((64,), "float32"),
        E: T.Tensor((64,), "float32"),
        L: T.Tensor((64,), "float32"),
    ):
        with T.Kernel(1):
            x_ub = T.alloc_shared((64,), "float32")
            y_ub = T.alloc_shared((64,), "float32")
            out = T.alloc_shared((7, 64), "float32")
            T.copy(X, x_ub)
            T.copy(Y, y_ub)
            with T.SimdVF():
                x = T.simd.vld(x_ub[0])
                y = T.simd.vld(y_ub[0])
                a0, a1 = T.simd.vintlv(x, y)
                b0, b1 = T.simd.vdintlv(a0, a1)
                T.simd.vsts(out[0, 0], a0)
                T.simd.vsts(out[1, 0], a1)
                T.simd.vsts(out[2, 0], b0)
                T.simd.vsts(out[3, 0], b1)
                T.simd.vsts(out[4, 0], T.simd.vabsdif(x, y))
                T.simd.vsts(out[5, 0], T.simd.vexpdif(x, y))
                T.simd.vsts(out[6, 0], T.simd.vlrelu(x, 0.25))
            T.copy(out[0, :], I0)
            T.copy(out[1, :], I1)
            T.copy(out[2, :], R0)
            T.copy(out[3, :], R1)
            T.copy(out[4, :], D)
            T.copy(out[5, :], E)
            T.copy(out[6, :], L)

    return main


if __name__ == "__main__":
    simd_permute()
