# Statements and calls that are not kernel work, and T.dynamic sizes.
# ARGS: -D m=abc
import tilelang.language as T


def helper(n):
    x = n * 2
    for i in range(3):  # helper loops run at compile time
        x += i
    return x


def deep(n):
    return deep(n)  # expected-error col 12 {{call nesting too deep (recursive function?)}}


@T.macro
def fill_all(buf, value=0.0):
    T.fill(buf, value)  # expected-error col 17 {{expected a scalar value, got str 'x'}}


def kernel(N=1024):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), D: T.Tensor((T.dynamic("n"),), "float32"), n: T.int32):
        with T.Kernel(4) as bx:
            a = T.alloc_shared((256,), "float32")
            T.exp(1.0)  # expected-error col 13 {{the result of T.exp(...) is unused}}
            helper(3)  # expected-error col 13 {{this call is not supported as a kernel statement}}
            y = helper(3)
            z = deep(1)
            assert n > 0  # expected-error col 13 {{'assert' on a run-time value is not supported in a kernel}}
            assert 1 > 2, "constants only"  # expected-error col 13 {{assertion failed: constants only}}
            T.copy(D, a)  # expected-error col 20 {{T.copy source 'D' has a symbolic shape; give an explicit region with constant extents}}
            T.copy(D[0:256], a)
            T.copy(*(A[0:256], a))
            T.copy(A[0:256], a, **{"pad_value": 0.0})  # expected-error col 33 {{'**' arguments are not supported in T.copy}}
            b = T.alloc_shared((T.dynamic("m"),), "float32")  # expected-error col 33 {{-D m=abc is not a positive integer size}}
            c = T.alloc_shared((T.dynamic(3),), "float32")  # expected-error col 33 {{T.dynamic() needs the size's name as a string}}
            T.copy(A[0, 0], a)  # expected-error col 20 {{buffer 'A' has rank 1 but is indexed with 2 indices}}
            fill_all(a)
            fill_all(a, value="x")  # expected-note col 13 {{in macro 'fill_all' inlined here}}
            T.gemm(*[a, a, a])  # expected-error col 13 {{T.gemm operands must both be in shared.l1, or A in shared.l0a and B in shared.l0b; got shared and shared}}

    return main
