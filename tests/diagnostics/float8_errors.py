# float8 buffers are stored, copied and cast, and + - * / and negation compute
# through float32 (rounded back); every other computation with float8 values
# is an error naming the operation.
import tilelang.language as T


def fp8_compute(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), T.float8_e4m3fn), B: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((N,), T.float8_e4m3fn)
            b = T.alloc_shared((N,), "float32")
            s = T.alloc_shared((1,), T.float8_e5m2)
            l1 = T.alloc_l1((16, 16), T.float8_e4m3fn)
            c = T.alloc_l0c((16, 16), "float32")
            T.copy(A, a)
            T.copy(a, b)
            with T.SimdVF():
                for i in T.Parallel(N):
                    b[i] = a[i] * s[0]  # expected-error col 28 {{'*' on float8_e4m3fn and float8_e5m2 values is not supported: float8 values compute only with values of their own format (through float32); convert first with T.cast(x, "float32")}}
                    b[i] = a[i] * b[i]  # expected-error col 28 {{'*' on float8_e4m3fn and float32 values is not supported: float8 values compute only with values of their own format (through float32); convert first with T.cast(x, "float32")}}
                    b[i] = a[i] // a[i]  # expected-error col 28 {{'//' needs integer operands; use '/' for floats}}
            with T.SimdVF():
                for i in T.Parallel(N):
                    b[i] = T.cast(a[i], "float32") * 2.0
                    a[i] = b[i] / 3.0
                    b[i] = -a[i] * 2.0
                    b[i] = T.exp(a[i])  # expected-error col 28 {{T.exp on float8_e4m3fn values is not supported: float8 is a storage type (copies, casts, stores); convert first with T.cast(x, "float32")}}
                    b[i] = T.max(a[i], b[i])  # expected-error col 28 {{T.max on float8_e4m3fn values is not supported: float8 is a storage type (copies, casts, stores); convert first with T.cast(x, "float32")}}
            T.reduce_max(a, s, dim=0)  # expected-error col 13 {{T.reduce_max on float8_e4m3fn buffer 'a' is not supported: float8 is a storage type (copies, casts, stores); T.copy it to a float32 buffer first}}
            T.gemm(l1, l1, c)  # expected-error col 13 {{T.gemm on float8_e4m3fn operands is not supported yet: float8 is a storage type (copies, casts, stores); T.copy the tiles to float16 first}}
            T.copy(b, B)

    return main
