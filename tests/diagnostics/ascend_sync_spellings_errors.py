# Malformed AscendC synchronisation spellings: the hard event must name two
# known pipes, the barrier a pipe name.
import tilelang.language as T


def synced_copy(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((N,), "float32")
            T.copy(A, a)
            T.copy(a, B)
            T.ascend_set_flag("MTE2", 0)  # expected-error col 31 {{hard event 'MTE2' must name two pipes, as in "MTE2_V"}}
            T.ascend_set_flag("MTE2_Q", 0)  # expected-error col 31 {{unknown pipe 'Q'; pipes are MTE1, MTE2, MTE3, M, V, FIX, S}}
            T.ascend_pipe_barrier(3)  # expected-error col 13 {{T.ascend_pipe_barrier takes one pipe such as "PIPE_V" or "PIPE_ALL"}}

    return main
