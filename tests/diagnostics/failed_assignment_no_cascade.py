# An assignment that fails reports one error; the names it would have bound
# are not reported again where they are used ("name 'x' is not defined").
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((64,), "float32")
        T.copy(A, a)
        with T.SimdVF():
            m = T.simd.pset(32)
            x = T.simd.vfoo(a[0], m)  # expected-error col 17 {{T.simd.vfoo is not supported yet; tilesched models T.simd.pset, update_mask, vcmp, vcmps, vld, vsts, vadd/vsub/vmul/vdiv/vmax/vmin, vadds/vmuls/vmaxs/vmins, vexp/vln/vsqrt/vabs/vneg/vrelu, vabsdif, vexpdif, vlrelu, vsel, vci, vcmax/vcmin/vcadd, vintlv/vdintlv, vdup, vdupv, alloc_var, alloc_local and mem_bar (docs/language.md)}}
            y, z = T.simd.vadd(x, x, m), x
            T.simd.vsts(a[0], y, m)
            T.simd.vsts(a[0], z, m)
        lo, hi = T.undefined_thing(3)  # expected-error col 18 {{unknown function T.undefined_thing; it is not in the TileLang subset tilesched supports}}
        for i in T.serial(lo, hi):
            B[i] = a[i]
