"""T.simd bitwise and shift intrinsics on integer registers: vand, vor, vxor,
vnot, vshl / vshr (per-lane counts), vshls / vshrs (one count), on int32 and
uint16 lanes.

    AND = X & Y, OR = X | Y, XOR = X ^ Y, NOT = ~X        (int32, 64 lanes)
    SHL = X << (S & 7), SHR = X >> (S & 7) (arithmetic), SLS = X << 3, SRS = X >> 2
    U = ~H, UR = H >> 3 (logical: uint16, 128 lanes)
"""

import tilelang
import tilelang.language as T


def simd_bitwise():
    @T.prim_func
    def main(
        X: T.Tensor((64,), "int32"),
        Y: T.Tensor((64,), "int32"),
        S: T.Tensor((64,), "int32"),
        H: T.Tensor((128,), "uint16"),
        O: T.Tensor((8, 64), "int32"),
        U: T.Tensor((2, 128), "uint16"),
    ):
        with T.Kernel(1):
            x_ub = T.alloc_shared((64,), "int32")
            y_ub = T.alloc_shared((64,), "int32")
            s_ub = T.alloc_shared((64,), "int32")
            h_ub = T.alloc_shared((128,), "uint16")
            o_ub = T.alloc_shared((8, 64), "int32")
            u_ub = T.alloc_shared((2, 128), "uint16")
            T.copy(X, x_ub)
            T.copy(Y, y_ub)
            T.copy(S, s_ub)
            T.copy(H, h_ub)
            with T.SimdVF():
                x = T.simd.vld(x_ub[0])
                y = T.simd.vld(y_ub[0])
                s = T.simd.vand(T.simd.vld(s_ub[0]), T.simd.vdup(7, "int32"))
                T.simd.vsts(o_ub[0, 0], T.simd.vand(x, y))
                T.simd.vsts(o_ub[1, 0], T.simd.vor(x, y))
                T.simd.vsts(o_ub[2, 0], T.simd.vxor(x, y))
                T.simd.vsts(o_ub[3, 0], T.simd.vnot(x))
                T.simd.vsts(o_ub[4, 0], T.simd.vshl(x, s))
                T.simd.vsts(o_ub[5, 0], T.simd.vshr(x, s))
                T.simd.vsts(o_ub[6, 0], T.simd.vshls(x, 3))
                T.simd.vsts(o_ub[7, 0], T.simd.vshrs(x, 2))
                h = T.simd.vld(h_ub[0])
                T.simd.vsts(u_ub[0, 0], T.simd.vnot(h), dist="NORM_B16")
                T.simd.vsts(u_ub[1, 0], T.simd.vshrs(h, 3), dist="NORM_B16")
            T.copy(o_ub, O)
            T.copy(u_ub, U)

    return main


if __name__ == "__main__":
    simd_bitwise()
