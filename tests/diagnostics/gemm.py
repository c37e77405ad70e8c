# T.gemm: operand scopes, shapes (with transposes) and dtypes.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float16")):
    with T.Kernel(1) as bx:
        a_l1 = T.alloc_l1((64, 32), "float16")
        b_l1 = T.alloc_l1((32, 64), "float16")
        bt_l1 = T.alloc_l1((64, 32), "float16")
        a_l0 = T.alloc_l0a((64, 32), "float16")
        b_l0 = T.alloc_l0b((32, 64), "float16")
        c = T.alloc_l0c((64, 64), "float32")
        c16 = T.alloc_l0c((64, 64), "float16")
        c_small = T.alloc_l0c((32, 64), "float32")
        i8_l1 = T.alloc_l1((64, 32), "int8")
        i8b_l1 = T.alloc_l1((32, 64), "int8")
        ci = T.alloc_l0c((64, 64), "int32")
        f32_l1 = T.alloc_l1((32, 64), "float32")
        ub = T.alloc_shared((64, 64), "float32")
        cube3 = T.alloc_l1((2, 64, 32), "float16")
        T.gemm(a_l1, b_l1, c)
        T.gemm(a_l0, b_l0, c, clear_accum=True)
        T.gemm(a_l1, bt_l1, c, transpose_B=True)
        T.gemm(i8_l1, i8b_l1, ci)
        T.gemm(a_l1, b_l1, c_small)  # expected-error col 9 {{T.gemm shapes do not match: A is 64x32, B is 32x64, C is 32x64; need A MxK, B KxN, C MxN}}
        T.gemm(a_l1, bt_l1, c)  # expected-error col 9 {{T.gemm shapes do not match: A is 64x32, B is 64x32, C is 64x64; need A MxK, B KxN, C MxN}}
        T.gemm(a_l1, b_l1, c, transpose_A=True)  # expected-error col 9 {{T.gemm shapes do not match: Aᵀ is 32x64, B is 32x64, C is 64x64; need A MxK, B KxN, C MxN}}
        T.gemm(a_l1, b_l0, c)  # expected-error col 9 {{T.gemm operands must both be in shared.l1, or A in shared.l0a and B in shared.l0b; got shared.l1 and shared.l0b}}
        T.gemm(ub, b_l1, c)  # expected-error col 9 {{T.gemm operands must both be in shared.l1, or A in shared.l0a and B in shared.l0b; got shared and shared.l1}}
        T.gemm(a_l1, b_l1, ub)  # expected-error col 28 {{T.gemm accumulates into a shared.l0c buffer; 'ub' is in shared}}
        T.gemm(a_l1, f32_l1, c)  # expected-error col 9 {{T.gemm operands have different dtypes (float16 and float32)}}
        T.gemm(a_l1, b_l1, c16)  # expected-error col 28 {{T.gemm on float16 operands accumulates in float32; 'c16' is float16}}
        T.gemm(i8_l1, i8b_l1, c)  # expected-error col 31 {{T.gemm on int8 operands accumulates in int32; 'c' is float32}}
        T.gemm(cube3, b_l1, c)  # expected-error col 16 {{T.gemm operand A must be a 2-D tile, got (2, 64, 32)}}
        T.gemm(a_l1, b_l1)  # expected-error col 9 {{T.gemm takes A, B and C (2 given)}}
        T.gemm(a_l1, b_l1, c, transpose_B=1)  # expected-error col 43 {{transpose_B must be True or False}}
        T.gemm(a_l1, b_l1, c, policy="square")  # expected-error col 31 {{unknown keyword argument 'policy' to T.gemm; accepted: transpose_A, transpose_B, clear_accum, unit_flag_ctrl}}
        T.gemm(cube3[0, :, :], b_l1, c)
