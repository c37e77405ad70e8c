"""T.simd.vcvt and the distributions that go with it, as upstream's SIMD
per-token cast writes them: a narrowed register keeps each value in the
part-th slot of its source lane (the other lanes zero), a PK store packs the
slots back into consecutive elements, an UNPK load spreads elements into
slots for a widening conversion.

    Q8 = float8_e4m3fn(X)                 vcvt + PK4_B32 (saturating)
    H0 = float16(X)                       vcvt PART_EVEN + PK_B32 (saturating)
    H1 = the whole register of vcvt PART_ODD: lane 2i + 1 = float16(X[i]), lane 2i = 0
    W  = float32(F)                       UNPK_B16 load + vcvt PART_EVEN (widening)
    S  = int16(A), saturated              int32 -> int16 + PK_B32
    Z  = int32(X), truncated, saturated   round="ROUND_Z"
"""

import tilelang
import tilelang.language as T


def simd_convert():
    @T.prim_func
    def main(
        X: T.Tensor((64,), "float32"),
        F: T.Tensor((64,), "float16"),
        A: T.Tensor((64,), "int32"),
        Q8: T.Tensor((64,), "float8_e4m3fn"),
        H0: T.Tensor((64,), "float16"),
        H1: T.Tensor((128,), "float16"),
        W: T.Tensor((64,), "float32"),
        S: T.Tensor((64,), "int16"),
        Z: T.Tensor((64,), "int32"),
    ):
        with T.Kernel(1):
            x_ub = T.alloc_shared((64,), "float32")
            f_ub = T.alloc_shared((64,), "float16")
            a_ub = T.alloc_shared((64,), "int32")
            q_ub = T.alloc_shared((64,), "float8_e4m3fn")
            h_ub = T.alloc_shared((2, 128), "float16")
            w_ub = T.alloc_shared((64,), "float32")
            s_ub = T.alloc_shared((64,), "int16")
            z_ub = T.alloc_shared((64,), "int32")
            T.copy(X, x_ub)
            T.copy(F, f_ub)
            T.copy(A, a_ub)
            with T.SimdVF():
                x = T.simd.vld(x_ub[0])
                T.simd.vsts(q_ub[0], T.simd.vcvt(x, "float8_e4m3fn"), dist="PK4_B32")
                even = T.simd.vcvt(x, "float16", part="PART_EVEN")
                T.simd.vsts(h_ub[0, 0], even, dist="PK_B32")
                odd = T.simd.vcvt(x, "float16", part="PART_ODD")
                T.simd.vsts(h_ub[1, 0], odd, dist="NORM_B16")
                f = T.simd.vld(f_ub[0], dist="UNPK_B16")
                T.simd.vsts(w_ub[0], T.simd.vcvt(f, "float32", part="PART_EVEN"))
                a = T.simd.vld(a_ub[0])
                T.simd.vsts(s_ub[0], T.simd.vcvt(a, "int16", part=0), dist="PK_B32")
                T.simd.vsts(z_ub[0], T.simd.vcvt(x, "int32", round="ROUND_Z"))
            T.copy(q_ub, Q8)
            T.copy(h_ub[0, 0:64], H0)
            T.copy(h_ub[1, :], H1)
            T.copy(w_ub, W)
            T.copy(s_ub, S)
            T.copy(z_ub, Z)

    return main


if __name__ == "__main__":
    simd_convert()
