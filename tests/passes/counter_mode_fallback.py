# A loop whose trip count is a run-time value cannot be numbered before it
# runs, so `(2, "iteration")` falls back to counter mode with a warning: the
# version index is an epoch counter (`a_ub_epoch % 2`) that
# insert-synchronization starts at 0 and advances once per iteration.
# PASSES: analyze, schedule, version-modes, materialize-versions, insert-synchronization, verify-lowered-sync
# SCHEDULE: double
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((2560,), "float32"), T7: T.Tensor((512,), "int32"), C: T.Tensor((2560,), "float32")):
    with T.Kernel(1) as bx:
        a_ub = T.alloc_ub((512,), "float32")
        b_ub = T.alloc_ub((512,), "float32")
        t7 = T.alloc_ub((512,), "int32")
        n0 = T.alloc_var(T.int32, 3)
        T.annotate_buffer_versions({a_ub: (2, "iteration")})  # expected-warning col 37 {{'a_ub' uses counter mode instead of iteration mode: the bounds of loop 'kk0' (line 20) are run-time values, so its iterations cannot be numbered before it runs}}
        T.copy(T7, t7)
        for o0 in T.unroll(5):
            for kk0 in T.serial(n0 % 2):
                T.copy(A[o0 * 512 : o0 * 512 + 512], a_ub)
                for i in T.Parallel(512):
                    b_ub[i] = a_ub[i] + 1.0
                T.copy(b_ub, C[o0 * 512 : o0 * 512 + 512])
                n0 = n0 + T.cast(t7[486], "int32")

# CHECK: a_ub = T.alloc_ub((2, 512), "float32")
# CHECK: a_ub_epoch = T.alloc_var("int32", init=0)
# CHECK: for kk0 in T.serial(n0[0] % 2):
# CHECK-NEXT: T.copy(A[o0 * 512:o0 * 512 + 512], a_ub[a_ub_epoch % 2, 0:512])  # MTE2
# CHECK: b_ub[b_ub_epoch % 2, i] = a_ub[a_ub_epoch % 2, i] + 1.0
# CHECK: n0[0] = n0[0] + t7[486]
# CHECK-NEXT: a_ub_epoch = a_ub_epoch + 1
