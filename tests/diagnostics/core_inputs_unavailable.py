# Core assignment: a cube task (GM->L1 copy) whose region start is a value
# only the vector core computes (a scalar read from UB) can run on no core.
import tilelang.language as T


def gemm_offset_from_ub(M=128, K=64):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), I: T.Tensor((8,), "int32"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1) as bx:
            idx_ub = T.alloc_ub((8,), "int32")
            a_l1 = T.alloc_l1((64, K), "float16")
            c_l0c = T.alloc_l0c((64, 64), "float32")
            T.copy(I, idx_ub)
            row = idx_ub[0]
            T.copy(A[row:row + 64, 0:K], a_l1)  # expected-error col 13 {{this task runs on the cube core (MTE2 into shared.l1) but reads 'row', computed on the vector core (line 14: scalar work on 'idx_ub' (shared)); read the value from global memory, which both cores can}}
            T.gemm(a_l1, a_l1, c_l0c, transpose_B=True)
            T.copy(c_l0c, C)

    return main
