# Core assignment: a gemm under an `if` whose condition loads UB: the cube
# core's scalar unit cannot read the vector core's memory.
import tilelang.language as T


def guard_from_ub(K=64):
    @T.prim_func
    def main(A: T.Tensor((64, K), "float16"), F: T.Tensor((8,), "int32"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1) as bx:
            f_ub = T.alloc_ub((8,), "int32")
            a_l1 = T.alloc_l1((64, K), "float16")
            c_l0c = T.alloc_l0c((64, 64), "float32")
            T.copy(F, f_ub)
            T.copy(A, a_l1)
            T.clear(c_l0c)
            if f_ub[0] > 0:
                T.gemm(a_l1, a_l1, c_l0c, transpose_B=True)  # expected-error col 17 {{this task runs on the cube core (pipe MTE1+M) but runs under an `if` that reads 'f_ub' (shared), which only the vector core can read}}
            T.copy(c_l0c, C)

    return main
