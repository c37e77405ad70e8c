# Constructs of upstream files that tilesched does not read are named in the
# message, never described by the implementation's value kinds.
import torch

import tilelang.language as T
from tilelang.language import simd as S
from tilelang.carver.arch.driver import get_num_cube_cores


def kernel(N=64, num_blocks=None):
    blocks = get_num_cube_cores(torch.npu.current_device()) if num_blocks is None else num_blocks

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(blocks) as bx:  # expected-error col 23 {{grid size must be a compile-time integer, got the host value 'tilelang.carver.arch.driver.get_num_cube_cores(...)', which tilesched cannot compute (it runs no host code such as device queries); use a constant, or a factory parameter given with -D}}
            a_ub = T.alloc_shared((N,), "float32")
            T.copy(A, a_ub)
            T.copy(a_ub, C)

    return main


def vector_code(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a_ub = T.alloc_shared((N,), "float32")
            T.copy(A, a_ub)
            with T.SimdVF():
                mask = T.vmi.create_mask(N, size=N)  # expected-error col 24 {{T.vmi.create_mask is not supported yet}}
                full = S.pset(32, "PAT_ALL")
                S.vcpadd(full)  # expected-error col 17 {{T.simd.vcpadd is not supported yet; tilesched models T.simd.pset, update_mask, vcmp, vcmps, vld, vsts, vadd/vsub/vmul/vdiv/vmax/vmin, vadds/vmuls/vmaxs/vmins, vexp/vln/vsqrt/vabs/vneg/vrelu, vabsdif, vexpdif, vlrelu, vsel, vci, vcmax/vcmin/vcadd, vintlv/vdintlv, vdup, vdupv, vcvt, vand/vor/vxor/vnot, vshl/vshr/vshls/vshrs, alloc_var, alloc_local and mem_bar (docs/language.md)}}
            T.copy(a_ub, C)

    return main
