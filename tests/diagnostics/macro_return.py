# A @T.macro that returns values: its statements are inlined where it is
# called, and the call's value is what it returns, used as `a, b = m(x)` or
# inside an expression.
import tilelang.language as T


@T.macro
def load_pair(src, dst_lo, dst_hi, base):
    T.copy(src[base:base + 64], dst_lo)
    T.copy(src[base + 64:base + 128], dst_hi)
    return dst_lo, dst_hi


@T.macro
def first_plus(buf, bias):
    return buf[0] + bias


def pair_kernel(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(2) as bx:
            lo = T.alloc_shared((64,), "float32")
            hi = T.alloc_shared((64,), "float32")
            x, y = load_pair(A, lo, hi, bx * 128)
            s = T.alloc_var("float32")
            s = first_plus(x, 1.0) * 2.0
            y[0] = s
            T.copy(x, B[bx * 128:bx * 128 + 64])
            T.copy(y, B[bx * 128 + 64:bx * 128 + 128])

    return main

# CHECK: T.copy(A[bx * 128:bx * 128 + 64], lo)  # MTE2
# CHECK: T.copy(A[bx * 128 + 64:bx * 128 + 64 + 64], hi)  # MTE2
# CHECK: s[0] = (lo[0] + 1.0) * 2.0
# CHECK: hi[0] = s[0]
# CHECK: T.copy(lo, B[bx * 128:bx * 128 + 64])  # MTE3
