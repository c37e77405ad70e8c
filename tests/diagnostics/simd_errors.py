# T.simd register intrinsics: only inside a T.SimdVF region, on UB addresses
# and registers; the intrinsics, distributions and modes tilesched does not
# model yet are errors that say so.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float16")):
    with T.Kernel(1) as bx:
        x = T.alloc_shared((64,), "float32")
        h = T.alloc_shared((128,), "float16")
        T.copy(A, x)
        r = T.simd.vld(x[0])  # expected-error col 13 {{T.simd.vld is a vector register intrinsic: use it inside 'with T.SimdVF():'}}
        with T.SimdVF():
            full = T.simd.pset(32)
            a = T.simd.vld(x[0])
            c = T.simd.vld(h[0])
            T.simd.vcpadd(a)  # expected-error col 13 {{T.simd.vcpadd is not supported yet; tilesched models T.simd.pset, update_mask, vcmp, vcmps, vld, vsts, vadd/vsub/vmul/vdiv/vmax/vmin, vadds/vmuls/vmaxs/vmins, vexp/vln/vsqrt/vabs/vneg/vrelu, vabsdif, vexpdif, vlrelu, vsel, vci, vcmax/vcmin/vcadd, vintlv/vdintlv, vdup, vdupv, vcvt, vand/vor/vxor/vnot, vshl/vshr/vshls/vshrs, alloc_var, alloc_local and mem_bar (docs/language.md)}}
            v0 = T.simd.vcvt(a, "float32")  # expected-error col 33 {{T.simd.vcvt converts float32 lanes to float32: nothing to convert}}
            v1 = T.simd.vcvt(a, "float16", part=2)  # expected-error col 49 {{T.simd.vcvt from float32 to float16 has 2 parts; part 2 does not exist}}
            v2 = T.simd.vcvt(a, "float16", round="ROUND_Z")  # expected-error col 18 {{T.simd.vcvt from float32 to float16 with round="ROUND_Z" (tilesched rounds to nearest even, ROUND_R) is not supported yet}}
            v3 = T.simd.vcvt(a, "float8_e4m3fn", sat=False)  # expected-error col 18 {{T.simd.vcvt from float32 to float8_e4m3fn with sat=False (tilesched's conversions to float8 and to integers saturate) is not supported yet}}
            v4 = T.simd.vcvt(a, "int32")  # expected-error col 18 {{T.simd.vcvt from float32 to int32 with round="ROUND_R" (tilesched converts floats to integers with ROUND_Z, truncation) is not supported yet}}
            v5 = T.simd.vcvt(a, "float16", full)  # expected-error col 44 {{T.simd.vcvt with a mask between widths (float32 to float16) is not supported yet; tilesched models it on all lanes}}
            v6 = T.simd.vcvt(a, "float16", round="ROUND_X")  # expected-error col 50 {{T.simd.vcvt round= is one of ROUND_R, ROUND_A, ROUND_F, ROUND_C, ROUND_Z, ROUND_O, ROUND_H, got "ROUND_X"}}
            T.simd.vsts(h[0], c, dist="PK4_B32")  # expected-error col 39 {{T.simd.vsts(..., dist="PK4_B32") stores 8-bit elements; the register holds float16 lanes}}
            b0 = T.simd.vxor(a, a)  # expected-error col 18 {{T.simd.vxor on float32 lanes is not supported yet}}
            b1 = T.simd.vshls(a, 2)  # expected-error col 18 {{T.simd.vshls on float32 lanes is not supported yet}}
            b2 = T.simd.vnot(a)  # expected-error col 18 {{T.simd.vnot on float32 lanes is not supported}}
            u = T.simd.vld(x[0], dist="UNPK_B16")  # expected-error col 39 {{T.simd.vld(..., dist="UNPK_B16") is not supported yet on float32 data; tilesched models NORM, BRC_B32, UNPK_B32}}
            m = T.simd.vadd(a, a, full, mode="MODE_MERGING")  # expected-error col 46 {{T.simd.vadd(..., mode="MODE_MERGING") is not supported yet; tilesched models MODE_ZEROING (inactive lanes are zero)}}
            T.simd.vsts(h[0], a, full)  # expected-error col 31 {{T.simd.vsts stores float32 lanes into 'h', which holds float16}}
            n = T.simd.vadd(a, a, 3)  # expected-error col 17 {{a T.simd mask must come from T.simd.pset, update_mask, vcmp or vcmps, got 3}}
            k = T.simd.vadd(x, a)  # expected-error col 29 {{T.simd.vadd takes a vector register (the result of a T.simd intrinsic) as src0, got buffer 'x'}}
            d = T.simd.vadd(a, c)  # expected-error col 17 {{T.simd.vadd needs two registers of one dtype, got float32 and float16}}
            g = T.simd.vld(A[0])  # expected-error col 28 {{T.simd.vld addresses a UB buffer (T.alloc_shared / T.alloc_ub); 'A' is global}}
            q = T.simd.pset(12)  # expected-error col 29 {{T.simd.pset element width must be 8, 16 or 32, got 12}}
            w = T.simd.pset(32, "PAT_M3")  # expected-error col 33 {{T.simd.pset(..., "PAT_M3") is not supported yet; tilesched models PAT_ALL, PAT_VLn, PAT_H and PAT_Q}}
            acc = T.simd.alloc_var("float32")
            acc = 1.0  # expected-error col 19 {{'acc' is a T.simd.alloc_var register; assign it the result of a T.simd intrinsic, got 1.0}}
            small = T.alloc_shared((32,), "float32")
            z = T.simd.vld(small[0])  # expected-error col 17 {{T.simd.vld reads 64 float32 lanes (256 bytes) at element 0 of 'small', which holds 32 elements; a register is always 256 bytes}}
            f8 = T.alloc_shared((256,), "float8_e4m3fn")
            e = T.simd.vmuls(T.simd.vld(f8[0]), 2.0)  # expected-error col 17 {{T.simd.vmuls on float8_e4m3fn values is not supported: float8 is a storage type (copies, casts, stores); convert first with T.cast(x, "float32")}}
            T.simd.vsts(x[0], a, full)
        with T.SimtVF(threads=32):
            s = T.simd.vld(x[0])  # expected-error col 17 {{T.simd.vld is a vector register intrinsic: use it inside 'with T.SimdVF():'}}
