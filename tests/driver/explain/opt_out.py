# {a_ub: 1} opts a_ub out of multi-buffering; c_ub stays automatic.
import tilelang.language as T


def opt_out(N=8192, tile=1024, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(1, is_npu=True) as bx:
            a_ub = T.alloc_ub((tile,), dtype)
            c_ub = T.alloc_ub((tile,), dtype)
            T.annotate_buffer_versions({a_ub: 1})
            for s in T.Pipelined(N // tile, num_stages=2):
                T.copy(A[s * tile : (s + 1) * tile], a_ub)
                for i in T.Parallel(tile):
                    c_ub[i] = a_ub[i] * 2.0
                T.copy(c_ub, C[s * tile : (s + 1) * tile])

    return main
