# T.get_thread_binding: only in a T.SimtVF region, outside T.Parallel bodies,
# for a dimension the region has; per-thread code without loops; bitwise
# operators on integers only.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32"), I: T.Tensor((64,), "int32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((64,), "float32")
        n = T.alloc_shared((64,), "int32")
        T.copy(A, a)
        T.copy(I, n)
        t0 = T.get_thread_binding()  # expected-error col 14 {{T.get_thread_binding is the thread index of a T.SimtVF region: use it inside 'with T.SimtVF(threads=...):'}}
        with T.SimtVF(threads=64):
            tx = T.get_thread_binding()
            ty = T.get_thread_binding(1)  # expected-error col 18 {{T.SimtVF(threads=...) has 1 dimension; dim 1 does not exist}}
            for i in T.Parallel(64):
                u = T.get_thread_binding()  # expected-error col 21 {{T.get_thread_binding inside a T.Parallel body is not supported yet: there the loop's own index is the element}}
            v = n[tx] + 1  # expected-error col 17 {{'v' names a per-thread value read from memory, which is not supported yet; use the expression where it is needed}}
            if tx < 32:
                for k in range(2):  # expected-error col 17 {{a loop in code that uses T.get_thread_binding is not supported yet; write the per-thread work without the loop, or as a T.Parallel over the elements}}
                    n[tx * 2 + k] = k
            n[tx] = n[tx] ^ 3
            a[tx] = a[tx] ^ 3  # expected-error col 21 {{'^' needs integer operands, got float32 and float32}}
        with T.SimdVF():
            w = T.get_thread_binding()  # expected-error col 17 {{T.get_thread_binding is the thread index of a T.SimtVF region: use it inside 'with T.SimtVF(threads=...):'}}
        T.copy(n, I)
