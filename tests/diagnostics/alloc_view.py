# Allocations and views.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32"), n: T.int32):
    with T.Kernel(4) as bx:
        a = T.alloc_shared((256,), "float32")
        b = T.alloc_ub((16, 16), dtype="float16")
        c = T.alloc_shared(shape=(8,), dtype=T.int8)
        d = T.alloc_shared((n,), "float32")  # expected-error col 28 {{dimension 0 of an on-chip buffer shape must be a compile-time integer, got a run-time value}}
        e = T.alloc_shared((0, 4), "float32")  # expected-error col 28 {{dimension 0 of an on-chip buffer shape must be positive, got 0}}
        f = T.alloc_shared((4,), "float33")  # expected-error col 34 {{unknown dtype 'float33'; expected one of bool, int8, int16, int32, int64, uint8, uint16, uint32, float16, bfloat16, float32, float8_e4m3fn, float8_e5m2}}
        g = T.alloc_shared()  # expected-error col 13 {{T.alloc_shared needs a shape: T.alloc_shared((M, N), dtype)}}
        h = T.alloc_shared((4,), "float32", align=32)  # expected-error col 45 {{unknown keyword argument 'align' to T.alloc_shared; accepted: dtype, scope, shape}}
        k = T.alloc_var()  # expected-error col 13 {{T.alloc_var needs a dtype: T.alloc_var("int32")}}
        v = T.alloc_var("int32", init=3)
        w = T.alloc_var(dtype="float32", init=1.5)
        m = T.alloc_var("int32", 0, shape=1)  # expected-error col 37 {{unknown keyword argument 'shape' to T.alloc_var; accepted: init, dtype}}
        p = T.alloc_shared(())  # expected-error col 28 {{an on-chip buffer shape needs at least one dimension}}
        q = T.alloc_shared(4.0)  # expected-error col 28 {{dimension 0 of an on-chip buffer shape must be a compile-time integer, got 4.0}}
        T.alloc_shared((4,), "float32")  # expected-error col 9 {{T.alloc_shared() must be assigned to a name: 'buf = T.alloc_shared(...)'}}
        x = T.view(a, (16, 16))
        y = T.view(a, (512,), "float32")  # expected-error col 13 {{view of 2048 bytes is larger than the 1024 bytes of 'a'}}
        z = T.view(A, (2048,))  # expected-error col 13 {{view of 8192 bytes is larger than the 4096 bytes of 'A'}}
        zz = T.view(3, (4,))  # expected-error col 21 {{T.view needs a buffer: T.view(buf, shape, dtype), got 3}}
        zzz = T.view(a)  # expected-error col 15 {{T.view needs a shape: T.view(buf, shape, dtype)}}
        ww = T.view(a, (16, 16), "float16", scope="shared")  # expected-error col 45 {{unknown keyword argument 'scope' to T.view; accepted: dtype, shape}}
        a = 3  # expected-error col 9 {{cannot assign to buffer 'a'; write its elements with 'a[...] = value' or use T.copy}}
        a[0:4] = 1.0  # expected-error col 11 {{cannot assign to a slice of 'a'; use T.copy or T.fill}}
        a, b = 1  # expected-error col 16 {{cannot unpack 1 into 2 names}}
        (a, b) = (b, a)
        a = b = 4  # expected-error col 9 {{chained assignment is not supported in a kernel}}
        a: int
        v = v + 1
        v += 2
        bx.x = 3  # expected-error col 9 {{only names and buffer elements can be assigned in a kernel}}
        z1 = T.alloc_weird((4,), "float32")  # expected-error col 14 {{unknown allocation T.alloc_weird; use alloc_shared, alloc_ub, alloc_l1, alloc_l0a, alloc_l0b, alloc_l0c, alloc_fragment, alloc_local, alloc_reducer or alloc_var}}
