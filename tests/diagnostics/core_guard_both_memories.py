# Core assignment: a gemm under a condition that loads both UB and L1: no
# core's scalar unit can read both memories.
import tilelang.language as T


def k(K=64):
    @T.prim_func
    def main(A: T.Tensor((64, K), "float16"), F: T.Tensor((8,), "int32"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1) as bx:
            f_ub = T.alloc_ub((8,), "int32")
            f_l1 = T.alloc_l1((8,), "int32")
            a_l1 = T.alloc_l1((64, K), "float16")
            c_l0c = T.alloc_l0c((64, 64), "float32")
            T.copy(F, f_ub)
            T.copy(F, f_l1)
            T.copy(A, a_l1)
            T.clear(c_l0c)
            if f_ub[0] > 0 and f_l1[0] > 0:
                T.gemm(a_l1, a_l1, c_l0c, transpose_B=True)  # expected-error col 17 {{the scalar unit reads 'f_ub' (shared) and 'f_l1' (shared.l1) here, the memories of both core kinds: no core can read both}}
            T.copy(c_l0c, C)

    return main
