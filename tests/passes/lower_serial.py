# The serial baseline: one version per buffer and a barrier over every pipe
# after each instruction, so nothing overlaps and no flag is needed.
# PASSES: lower-serial
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((4096,), "float32"), C: T.Tensor((4096,), "float32")):
    with T.Kernel(1, is_npu=True) as bx:
        a_ub = T.alloc_ub((1024,), "float32")
        c_ub = T.alloc_ub((1024,), "float32")
        for s in T.Pipelined(4, num_stages=2):
            T.copy(A[s * 1024:s * 1024 + 1024], a_ub)
            for i in T.Parallel(1024):
                c_ub[i] = a_ub[i] * 2.0
            T.copy(c_ub, C[s * 1024:s * 1024 + 1024])

# CHECK: a_ub = T.alloc_ub((1024,), "float32")
# CHECK: T.copy(A[s * 1024:s * 1024 + 1024], a_ub)  # MTE2
# CHECK-NEXT: T.pipe_barrier("ALL")
# CHECK-NEXT: for i in T.Parallel(1024):
# CHECK-NEXT: c_ub[i] = a_ub[i] * 2.0
# CHECK-NEXT: T.pipe_barrier("ALL")
# CHECK-NEXT: T.copy(c_ub, C[s * 1024:s * 1024 + 1024])  # MTE3
# CHECK-NEXT: T.pipe_barrier("ALL")
# CHECK-NOT: set_flag
