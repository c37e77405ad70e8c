# One UB buffer owned by two sibling loops inside a pipelined loop: their
# accesses exclude each other in time, and they share no pipe, so the owner
# exclusion (forward + reverse hand-off) bounds the outer loop's II.
import tilelang.language as T


def owner_bound(N=4096, tile=1024, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), S: T.Tensor((tile,), dtype)):
        with T.Kernel(1, is_npu=True) as bx:
            buf = T.alloc_ub((tile,), dtype)
            acc = T.alloc_ub((tile,), dtype)
            T.clear(acc)
            for s in T.Pipelined(2, num_stages=2):
                for a in T.serial(2):
                    T.copy(A[(s * 2 + a) * tile : (s * 2 + a + 1) * tile], buf)
                    T.copy(buf, B[(s * 2 + a) * tile : (s * 2 + a + 1) * tile])
                for b in T.serial(2):
                    T.fill(buf, 1.0)
                    for i in T.Parallel(tile):
                        acc[i] = acc[i] + buf[i]
            T.copy(acc, S[0:tile])

    return main
