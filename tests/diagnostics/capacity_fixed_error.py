# Fixed counts are charged before solving; the error is at the map entry. One version of a and b
# fits the UB (2 x 80000 of 253952 bytes), but {a: 3} makes it
# 3 x 80000 + 80000 = 320000 bytes.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((80000,), "float32"), B: T.Tensor((80000,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_ub((20000,), "float32")
        b = T.alloc_ub((20000,), "float32")
        T.annotate_buffer_versions({a: 3})  # expected-error col 37 {{3 versions of 'a' make scope 'shared' need 320000 bytes, but its capacity is 253952 bytes (one version of every buffer needs 160000); annotate fewer versions, or add T.annotate_unlimit_memory("shared")}}
        for s in T.Pipelined(4, num_stages=2):
            T.copy(A[s * 20000:s * 20000 + 20000], a)
            for i in T.Parallel(20000):
                b[i] = a[i] * 2.0
            T.copy(b, B[s * 20000:s * 20000 + 20000])
