# Expressions on run-time values: what is legal and what is not.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32"), I: T.Tensor((1024,), "int32"), n: T.int32, eps: T.float32):
    with T.Kernel(4) as bx:
        a = T.alloc_shared((256,), "float32")
        b = T.alloc_shared((256,), "int32")
        m = T.alloc_shared((4, 64), "float32")
        for i in T.Parallel(256):
            a[i] = A[i] / 2.0
            b[i] = I[i] // 2 + I[i] % 3
            b[i] = I[i] / 2  # expected-error col 20 {{'/' on integers is true division; use '//' for integer division}}
            a[i] = A[i] // 2.0  # expected-error col 20 {{'//' needs integer operands; use '/' for floats}}
            a[i] = A[i] % 2.0  # expected-error col 20 {{'%' needs integer operands; use '/' for floats}}
            b[i] = I[i] // 0  # expected-error col 20 {{integer division by zero}}
            b[i] = I[i] % 0  # expected-error col 20 {{integer modulo by zero}}
            b[i] = I[i] << 1
            a[i] = A[i] << 1  # expected-error col 20 {{'<<' needs integer operands, got float32 and float32}}
            a[i] = A[i] ** 2  # expected-error col 20 {{operator '**' is not supported on run-time values}}
            b[i] = ~I[i]  # expected-error col 20 {{operator '~' is not supported on run-time values}}
            a[i] = A[i] if I[i] in (1, 2) else 0.0  # expected-error col 28 {{'in' is not supported on run-time values}}
            a[i] = m[i]  # expected-error col 20 {{buffer 'm' has rank 2 but is indexed with 1 index}}
            a[i] = m  # expected-error col 20 {{buffer 'm' is used where a scalar value is expected}}
            a[i] = m[0, 0:4]  # expected-error col 25 {{a slice of 'm' is a region, not a scalar value}}
            a[i] = a[0.5]  # expected-error col 22 {{buffer indices must be integers}}
            a[i] = T.exp(A[i], 2)  # expected-error col 20 {{T.exp() takes 1 argument (2 given)}}
            a[i] = T.cast(A[i], "float99")  # expected-error col 33 {{unknown dtype 'float99'; expected one of bool, int8, int16, int32, int64, uint8, uint16, uint32, float16, bfloat16, float32, float8_e4m3fn, float8_e5m2}}
            a[i] = T.float32("abc")  # expected-error col 20 {{cannot convert 'abc' to float32}}
            a[i] = T.float32(1, 2)  # expected-error col 20 {{T.float32() takes exactly one argument}}
            a[i] = T.max(A[i], 0.0, 1.0)  # expected-error col 20 {{T.max() takes 2 arguments (3 given)}}
            a[i] = T.if_then_else(i < 4, A[i])  # expected-error col 20 {{T.if_then_else() takes 3 arguments (2 given)}}
            a[i] = T.infinity("float32") + T.if_then_else(i < 4, A[i], -A[i]) + T.Select(i > 2, 1.0, eps)
            a[i] = T.sqrt(A[i]) + T.rsqrt(A[i]) + T.log(A[i]) + T.tanh(A[i]) + T.sigmoid(A[i]) + T.abs(A[i])
            a[i] = T.min(A[i], eps) + T.max(1.0, A[i]) + min(A[i], 2.0) + abs(A[i]) + float(I[i])
            a[i] = a.nbytes  # expected-error col 20 {{buffer has no attribute 'nbytes'; available: shape, dtype, data}}
            a[i] = (1, 2)  # expected-error col 20 {{expected a scalar value, got tuple '(1, 2)'}}
            a[i] = "text"  # expected-error col 20 {{expected a scalar value, got str 'text'}}
            a[i] = A[i] is None  # expected-error col 20 {{'is' is not supported on run-time values}}
            a[i] = {1, 2}  # expected-error col 20 {{set literals are not supported}}
            a[i] = [x for x in range(3)]  # expected-error col 20 {{comprehensions are not supported}}
            a[i] = A[i:i + 4]  # expected-error col 22 {{a slice of 'A' is a region, not a scalar value}}
            a[i] = 1j  # expected-error col 20 {{complex numbers are not supported}}
            a[i] = n(3)  # expected-error col 20 {{'expression' object is not callable}}
            a[i] = T(3)  # expected-error col 20 {{a module is not callable}}
            a[i] = len(A[i])  # expected-error col 20 {{object of type 'buffer access' has no len()}}
            a[i] = int("x")  # expected-error col 20 {{invalid literal for int(): 'x'}}
            a[i] = A[...]  # expected-error col 22 {{'...' is not supported here}}
        x = n / 2  # expected-error col 13 {{'/' on integers is true division; use '//' for integer division}}
        y = n // 2
        z = (n > 0 and n < 10) or not n == 3
        w = -n + (+n)
        g = T.alloc_var(T.bool, I[0])
        v = bool(g)  # expected-error col 13 {{the truth value of T.alloc_var 'g' is only known at run time}}
        v = bool(n)  # expected-error col 13 {{the truth value of a run-time value is only known at run time}}
        T.fill(a, eps)
