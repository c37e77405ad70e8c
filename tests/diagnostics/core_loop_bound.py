# Core assignment: a loop whose trip count is read from UB on the vector
# core holds a cube task: the cube core cannot evaluate its bounds.
import tilelang.language as T


def loop_bound_from_ub(K=64):
    @T.prim_func
    def main(A: T.Tensor((256, K), "float16"), F: T.Tensor((8,), "int32"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1) as bx:
            f_ub = T.alloc_ub((8,), "int32")
            a_l1 = T.alloc_l1((64, K), "float16")
            c_l0c = T.alloc_l0c((64, 64), "float32")
            T.copy(F, f_ub)
            n = f_ub[0]
            T.clear(c_l0c)
            for k in T.serial(n):
                T.copy(A[k * 64:k * 64 + 64, 0:K], a_l1)  # expected-error col 17 {{this task runs on the cube core (MTE2 into shared.l1) but is inside the loop at line 16, whose bounds read 'n', computed on the vector core (line 14: scalar work on 'f_ub' (shared)); read the value from global memory, which both cores can}}
                T.gemm(a_l1, a_l1, c_l0c, transpose_B=True)
            T.copy(c_l0c, C)

    return main
