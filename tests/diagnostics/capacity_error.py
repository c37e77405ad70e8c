# SPEC §5: when one version of every storage already exceeds a scope, compile
# fails before solving, at the loop that owns the storages, naming the scope,
# its capacity (ascend950 UB: 253952 bytes) and the minimum usage
# (3 x 90000 floats x 4 bytes = 1080000 bytes), suggesting the annotation.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((360000,), "float32"), B: T.Tensor((360000,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_ub((90000,), "float32")
        b = T.alloc_ub((90000,), "float32")
        c = T.alloc_ub((90000,), "float32")
        for s in T.Pipelined(4, num_stages=2):  # expected-error col 9 {{scope 'shared' needs at least 1080000 bytes with one version of every buffer but its capacity is 253952 bytes; use smaller buffers or add T.annotate_unlimit_memory("shared")}}
            T.copy(A[s * 90000:s * 90000 + 90000], a)
            T.copy(A[s * 90000:s * 90000 + 90000], b)
            for i in T.Parallel(90000):
                c[i] = a[i] + b[i]
            T.copy(c, B[s * 90000:s * 90000 + 90000])
