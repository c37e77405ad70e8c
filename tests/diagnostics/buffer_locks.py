# T.ascend_get_buf / T.ascend_rls_buf: (pipe, buf_id, mode=False), outside VF
# regions and T.Parallel bodies.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((64,), "float32")
        T.ascend_get_buf("PIPE_MTE2", 0)
        T.copy(A, a)
        T.ascend_rls_buf("PIPE_MTE2", 0, mode=True)
        T.ascend_get_buf("PIPE_MTE2")  # expected-error col 9 {{T.ascend_get_buf takes (pipe, buf_id, mode=False) with a pipe such as "PIPE_MTE2"}}
        T.ascend_get_buf("PIPE_XYZ", 0)  # expected-error col 26 {{unknown pipe 'PIPE_XYZ'; pipes are MTE1, MTE2, MTE3, M, V, FIX, S}}
        T.ascend_rls_buf("PIPE_V", -1)  # expected-error col 36 {{the buf_id of T.ascend_rls_buf must not be negative, got -1}}
        T.ascend_get_buf("PIPE_V", 0.5)  # expected-error col 36 {{the buf_id of T.ascend_get_buf must be an integer}}
        T.ascend_get_buf("PIPE_V", 0, wait=True)  # expected-error col 39 {{unknown keyword argument 'wait' to T.ascend_get_buf; accepted: mode}}
        with T.SimdVF():
            T.ascend_get_buf("PIPE_V", 1)  # expected-error col 13 {{T.ascend_get_buf is not allowed inside a VF region; lock around the region (it runs as one V instruction)}}
        x = T.ascend_get_buf("PIPE_V", 1)  # expected-error col 13 {{T.ascend_get_buf(...) is a statement and has no value}}
        T.copy(a, B)
