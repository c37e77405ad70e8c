# `--schedule double`: every eligible buffer gets two versions; materialisation
# gives each a leading version dimension indexed by the loop's iteration.
# PASSES: analyze, schedule, version-modes, materialize-versions
# SCHEDULE: double
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

# CHECK: a_ub = T.alloc_ub((2, 1024), "float32")
# CHECK-NEXT: c_ub = T.alloc_ub((2, 1024), "float32")
# CHECK: for s in T.Pipelined(4, num_stages=2):
# CHECK-NEXT: T.copy(A[s * 1024:s * 1024 + 1024], a_ub[s % 2, 0:1024])  # MTE2
# CHECK-NOT: set_flag
# CHECK: c_ub[s % 2, i] = a_ub[s % 2, i] * 2.0
