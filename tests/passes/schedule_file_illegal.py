# A hand-written schedule the independent checker rejects is an error, never
# lowered: here the compute starts before the copy it reads has finished
# (schedule_file_illegal.schedule), and the store starts in stage 0 though its
# start says stage 1.
# PASSES: analyze, schedule, version-modes
# SCHEDULE-FILE: schedule_file_illegal.schedule
import tilelang.language as T


@T.prim_func
def main(X: T.Tensor((320,), "float32"), Y: T.Tensor((320,), "float32")):
    with T.Kernel(1) as bx:
        x_ub = T.alloc_ub((64,), "float32")
        y_ub = T.alloc_ub((64,), "float32")
        for s in T.Pipelined(5, num_stages=2):
            T.copy(X[s * 64:s * 64 + 64], x_ub)
            for i in T.Parallel(64):
                y_ub[i] = x_ub[i] * 2.0
            T.copy(y_ub, Y[s * 64:s * 64 + 64])

# expected-error@none {{schedule file 'schedule_file_illegal.schedule': the schedule of 'main' is not legal (3 problems)}}
# expected-note@none {{shape: loop s (line 15): #2 has stage 0 but starts at 150 with II 100}}
# expected-note@none {{dependency: loop s (line 15): RAW #0 -> #1 on x_ub needs s1 - s0 >= 96 - 100·0 but it is 1}}
# expected-note@none {{dependency: loop s (line 15): WAR #2 -> #1 on y_ub needs s1 - s2 >= 185 - 100·2 but it is -149}}
