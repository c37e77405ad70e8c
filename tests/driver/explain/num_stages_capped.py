# A load, a compute and a store over one buffer each, with num_stages=1: one
# version, so the write-after-read hand-off back to the load closes a cycle
# that bounds II; more versions would lift it (the cap costs II).
import tilelang.language as T


def num_stages_capped(N=8192, tile=1024, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(1, is_npu=True) as bx:
            a_ub = T.alloc_ub((tile,), dtype)
            c_ub = T.alloc_ub((tile,), dtype)
            for s in T.Pipelined(N // tile, num_stages=1):
                T.copy(A[s * tile : (s + 1) * tile], a_ub)
                for i in T.Parallel(tile):
                    c_ub[i] = a_ub[i] * 2.0
                T.copy(c_ub, C[s * tile : (s + 1) * tile])

    return main
