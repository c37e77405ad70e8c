# Core assignment: a scalar statement that reads UB and writes L1 touches
# the memories of both core kinds, so no single core can run it.
import tilelang.language as T


def scalar_both(K=64):
    @T.prim_func
    def main(A: T.Tensor((64, K), "float16"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1) as bx:
            a_ub = T.alloc_ub((64, K), "float16")
            a_l1 = T.alloc_l1((64, K), "float16")
            c_l0c = T.alloc_l0c((64, 64), "float32")
            T.copy(A, a_ub)
            T.copy(A, a_l1)
            a_l1[0, 0] = a_ub[0, 0]  # expected-error col 26 {{this scalar statement touches the memories of both core kinds: 'a_ub' (shared) is the vector core's, 'a_l1' (shared.l1) the cube core's; move the value through global memory}}
            T.gemm(a_l1, a_l1, c_l0c, transpose_B=True)
            T.copy(c_l0c, C)

    return main
