# Core assignment: a T.Parallel (pipe V, the vector core) on an L0C buffer,
# which only the cube core reaches.
import tilelang.language as T


def vector_on_l0c(K=64):
    @T.prim_func
    def main(A: T.Tensor((64, K), "float16"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1) as bx:
            a_l1 = T.alloc_l1((64, K), "float16")
            c_l0c = T.alloc_l0c((64, 64), "float32")
            T.copy(A, a_l1)
            T.gemm(a_l1, a_l1, c_l0c, transpose_B=True, clear_accum=True)
            for i, j in T.Parallel(64, 64):  # expected-error col 13 {{this task runs on the vector core (pipe V) but touches 'c_l0c' (shared.l0c), the memory of the cube core}}
                c_l0c[i, j] = c_l0c[i, j] * 2.0
            T.copy(c_l0c, C)

    return main
