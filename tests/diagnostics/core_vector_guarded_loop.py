# Core assignment: a loop under an `if` that loads UB, holding vector work and
# scalar work, runs on the vector core; the kernel's gemm elsewhere stays on
# the cube core: no diagnostic.
import tilelang.language as T


def k(K=64):
    @T.prim_func
    def main(A: T.Tensor((64, K), "float16"), F: T.Tensor((8,), "int32"), C: T.Tensor((64, 64), "float32"), O: T.Tensor((64,), "float32")):
        with T.Kernel(1) as bx:
            f_ub = T.alloc_ub((8,), "int32")
            o_ub = T.alloc_ub((64,), "float32")
            a_l1 = T.alloc_l1((64, K), "float16")
            c_l0c = T.alloc_l0c((64, 64), "float32")
            T.copy(F, f_ub)
            T.copy(A, a_l1)
            T.clear(c_l0c)
            T.gemm(a_l1, a_l1, c_l0c, transpose_B=True)
            T.copy(c_l0c, C)
            T.copy(O, o_ub)
            if f_ub[0] > 0:
                for i in T.serial(4):
                    x = i + 1
                    for j in T.Parallel(64):
                        o_ub[j] = o_ub[j] + 1.0
            T.copy(o_ub, O)

    return main
