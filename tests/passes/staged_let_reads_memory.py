# The schedule of staged_let.py on a body whose let reads memory: the
# stage-2 store cannot take `off`'s definition (it reads K at another
# iteration), so the loop is lowered without stages, with a warning that
# says why, and runs its iterations one after the other (no extra trips).
# (The schedule names loop s at line 16, as in staged_let.py.)
# PASSES: analyze, schedule, version-modes, materialize-versions, insert-synchronization, verify-lowered-sync
# SCHEDULE-FILE: staged_let.schedule
import tilelang.language as T


@T.prim_func
def main(X: T.Tensor((320,), "float32"), Y: T.Tensor((320,), "float32"), K: T.Tensor((5,), "int32")):
    with T.Kernel(1) as bx:
        x_ub = T.alloc_ub((64,), "float32")
        y_ub = T.alloc_ub((64,), "float32")
        for s in T.Pipelined(5, num_stages=3, annotations={"enable_offset": True}):  # expected-warning col 9 {{loop 's' is lowered without stages: 'off' is defined at another stage than its use at line 21, and its value reads memory or it is assigned more than once}}
            off = s * 64 + T.min(T.max(K[s], 0), 0)
            T.copy(X[off:off + 64], x_ub)
            for i in T.Parallel(64):
                y_ub[i] = x_ub[i] * 2.0 + 1.0
            T.copy(y_ub, Y[off:off + 64])

# CHECK: for s in T.Pipelined(5, num_stages=3, annotations={"enable_offset": True}):
# CHECK-NOT: if s >= 2
# CHECK: T.copy(X[off:off + 64], x_ub[s % 3, 0:64])  # MTE2
# CHECK: y_ub[s % 3, i] = x_ub[s % 3, i] * 2.0 + 1.0
# CHECK: T.copy(y_ub[s % 3, 0:64], Y[off:off + 64])  # MTE3
