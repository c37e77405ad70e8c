# A hand-written schedule with three stages under enable_offset (the load at
# stage 0, the compute at stage 1, the store at stage 2; staged_let.schedule):
# the loop runs two extra iterations, and the stage-2 store runs iteration
# s - 2, so it reads the let `off` as its definition shifted by two
# iterations, and the version of iteration s - 2.
# PASSES: analyze, schedule, version-modes, materialize-versions, insert-synchronization, verify-lowered-sync
# SCHEDULE-FILE: staged_let.schedule
import tilelang.language as T


@T.prim_func
def main(X: T.Tensor((320,), "float32"), Y: T.Tensor((320,), "float32")):
    with T.Kernel(1) as bx:
        x_ub = T.alloc_ub((64,), "float32")
        y_ub = T.alloc_ub((64,), "float32")
        for s in T.Pipelined(5, num_stages=3, annotations={"enable_offset": True}):
            off = s * 64
            T.copy(X[off:off + 64], x_ub)
            for i in T.Parallel(64):
                y_ub[i] = x_ub[i] * 2.0 + 1.0
            T.copy(y_ub, Y[off:off + 64])

# CHECK: x_ub = T.alloc_ub((3, 64), "float32")
# CHECK: for s in T.Pipelined(7, num_stages=3, annotations={"enable_offset": True}):
# CHECK-NEXT: if s < 5:
# CHECK-NEXT: off = s * 64
# CHECK: T.copy(X[off:off + 64], x_ub[s % 3, 0:64])  # MTE2
# CHECK: if s >= 1 and s < 6:
# CHECK-NEXT: for i in T.Parallel(64):
# CHECK-NEXT: y_ub[(s - 1) % 3, i] = x_ub[(s - 1) % 3, i] * 2.0 + 1.0
# CHECK: if s >= 2 and s < 7:
# CHECK-NEXT: T.copy(y_ub[(s - 2) % 3, 0:64], Y[(s - 2) * 64:(s - 2) * 64 + 64])  # MTE3
# CHECK-NOT: pipe_barrier
