# One version per buffer (`--schedule none`): every reuse of a buffer across
# iterations needs a flag. a_ub: the copy in (MTE2) waits until the previous
# iteration's compute (V) has read it (V -> MTE2, pre-set before the loop),
# and the compute waits for the copy (MTE2 -> V). c_ub likewise between V and
# MTE3. After the loop the pre-set flags are drained, so every set has its wait.
# PASSES: analyze, schedule, version-modes, materialize-versions, insert-synchronization, verify-lowered-sync
# SCHEDULE: none
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
# CHECK: T.annotate_buffer_versions({a_ub: (1, "auto"), c_ub: (1, "auto")})
# CHECK-NEXT: T.set_flag("V", "MTE2", 0)
# CHECK-NEXT: T.set_flag("MTE3", "V", 0)
# CHECK-NEXT: for s in T.Pipelined(4, num_stages=2):
# CHECK-NEXT: T.wait_flag("V", "MTE2", 0)
# CHECK-NEXT: T.copy(A[s * 1024:s * 1024 + 1024], a_ub)  # MTE2
# CHECK-NEXT: T.set_flag("MTE2", "V", 0)
# CHECK-NEXT: T.wait_flag("MTE2", "V", 0)
# CHECK-NEXT: T.wait_flag("MTE3", "V", 0)
# CHECK-NEXT: for i in T.Parallel(1024):
# CHECK: T.set_flag("V", "MTE3", 0)
# CHECK-NEXT: T.set_flag("V", "MTE2", 0)
# CHECK-NEXT: T.wait_flag("V", "MTE3", 0)
# CHECK-NEXT: T.copy(c_ub, C[s * 1024:s * 1024 + 1024])  # MTE3
# CHECK-NEXT: T.set_flag("MTE3", "V", 0)
# CHECK-NEXT: T.wait_flag("V", "MTE2", 0)
# CHECK-NEXT: T.wait_flag("MTE3", "V", 0)
# CHECK-NOT: pipe_barrier
