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
            x = T.simd.vfoo(a[0], m)  # expected-error col 17 {{T.simd.vfoo is not supported yet; tilesched models T.simd.pset, update_mask, vcmp, vcmps, vld, vsts, vadd/vsub/vmul/vdiv/vmax/vmin, vadds/vmuls/vmaxs/vmins, vexp/vln/vsqrt/vabs/vneg/vrelu, vabsdif, vexpdif, vlrelu, vsel, vci, vcmax/vcmin/vcadd, vintlv/vdintlv, vdup, vdupv, vcvt, vand/vor/vxor/vnot, vshl/vshr/vshls/vshrs, alloc_var, alloc_local and mem_bar (docs/language.md)}}
            y, z = T.simd.vadd(x, x, m), x
            T.simd.vsts(a[0], y, m)
            T.simd.vsts(a[0], z, m)
        lo, hi = T.undefined_thing(3)  # expected-error col 18 {{unknown function T.undefined_thing; it is not in the TileLang subset tilesched supports}}
        for i in T.serial(lo, hi):
            B[i] = a[i]


# The same for a name whose earlier binding ended with its loop, for the names
# an `if` on a failed condition binds, for names bound before `with T.Kernel`,
# and for a macro whose body or return value failed.
@T.prim_func
def after_scope(A: T.Tensor((8,), "float32"), B: T.Tensor((8,), "float32")):
    n = T.undefined_thing(8)  # expected-error col 9 {{unknown function T.undefined_thing; it is not in the TileLang subset tilesched supports}}
    with T.Kernel(1) as bx:
        s = T.alloc_shared((8,), "float32")
        T.copy(A, s)
        for i in T.serial(8):
            x = s[i] * 2.0
            s[i] = x
        x = T.undefined_thing(3)  # expected-error col 13 {{unknown function T.undefined_thing; it is not in the TileLang subset tilesched supports}}
        mode = T.undefined_thing("fast")  # expected-error col 16 {{unknown function T.undefined_thing; it is not in the TileLang subset tilesched supports}}
        if mode == "fast":
            scale = 2.0
        else:
            scale = 1.0

        @T.macro
        def body(i):
            z = T.undefined_thing(i)  # expected-error col 17 {{unknown function T.undefined_thing; it is not in the TileLang subset tilesched supports}}
            s[i] = z
            return z

        w = body(0)  # expected-note col 13 {{in macro 'body' inlined here}}
        s[1] = w
        for i in T.serial(n):
            s[i] = x * scale
        T.copy(s, B)
