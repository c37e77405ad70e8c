# SPEC §2.3: an unlimited scope is never overfull for the scheduler (no error
# although 3 x 360000 bytes exceed the 253952-byte UB).
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((360000,), "float32"), B: T.Tensor((360000,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_ub((90000,), "float32")
        b = T.alloc_ub((90000,), "float32")
        c = T.alloc_ub((90000,), "float32")
        T.annotate_unlimit_memory("shared")
        for s in T.Pipelined(4, num_stages=2):
            T.copy(A[s * 90000:s * 90000 + 90000], a)
            T.copy(A[s * 90000:s * 90000 + 90000], b)
            for i in T.Parallel(90000):
                c[i] = a[i] + b[i]
            T.copy(c, B[s * 90000:s * 90000 + 90000])
