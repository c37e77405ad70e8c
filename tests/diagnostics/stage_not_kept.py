# Stages no modulo schedule can keep: the loop is scheduled as if T.Stage
# were not written, with a warning that names each unit moved.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32"), C: T.Tensor((1024,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((256,), "float32")
        c = T.alloc_shared((256,), "float32")
        for t in T.Pipelined(4, num_stages=2, annotations={"enable_offset": True}):  # expected-warning col 9 {{the stages T.Stage fixes in loop 't' are not kept (line 15 in stage 0 needs line 13 of the same iteration, which is in stage 1: no unit can start in an earlier stage than one it depends on): it is scheduled as if they were not written (II 103)}}
            with T.Stage(1):
                T.copy(A[t * 256:t * 256 + 256], a)  # expected-note col 17 {{T.Stage(1) is written here; this unit starts in stage 0}}
            with T.Stage(0):
                for i in T.Parallel(256):  # expected-note col 17 {{T.Stage(0) is written here; this unit starts in stage 1}}
                    c[i] = a[i] + 1.0
            T.copy(c, C[t * 256:t * 256 + 256])
