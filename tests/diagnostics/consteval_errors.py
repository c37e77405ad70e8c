# Errors of compile-time evaluation inside a kernel use Python's wording.
import tilelang.language as T

BIG = 2 ** 62


@T.prim_func
def main(A: T.Tensor((1024,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((BIG * 4,), "float32")  # expected-error col 29 {{integer overflow in constant expression (tilesched evaluates with 64-bit ints)}}
        b = T.alloc_shared((4 // 0,), "float32")  # expected-error col 29 {{integer division by zero}}
        c = T.alloc_shared(((1, 2)[5],), "float32")  # expected-error col 36 {{index 5 out of range for a tuple of length 2}}
        c2 = T.alloc_shared((1, 2, 3)[1:], "float32")
        c3 = T.alloc_shared((1, 2, 3)[::0], "float32")  # expected-error col 41 {{slice step cannot be zero}}
        d = T.alloc_shared(({"x": 1}["y"],), "float32")  # expected-error col 38 {{key 'y' not found}}
        e = T.alloc_shared(("a" + 1,), "float32")  # expected-error col 29 {{unsupported operand type(s) for +: 'str' and 'int'}}
        f = T.alloc_shared((-"a",), "float32")  # expected-error col 29 {{bad operand type for unary -: 'str'}}
        g = T.alloc_shared((1 << -1,), "float32")  # expected-error col 29 {{negative shift count}}
        h = T.alloc_shared((1 < "a",), "float32")  # expected-error col 29 {{'<' not supported between instances of 'int' and 'str'}}
        k = T.alloc_shared((3 in 4,), "float32")  # expected-error col 29 {{argument of type 'int' is not iterable}}
        m = T.alloc_shared((int(1e300),), "float32")  # expected-error col 29 {{cannot convert float to int}}
        p = T.alloc_shared((T.ceildiv(4, 0),), "float32")  # expected-error col 29 {{integer division by zero in T.ceildiv}}
        q = T.alloc_shared((max(),), "float32")  # expected-error col 29 {{max() expects at least one argument}}
        r = T.alloc_shared((len(3),), "float32")  # expected-error col 29 {{object of type 'int' has no len()}}
        s = T.alloc_shared((abs(1, 2),), "float32")  # expected-error col 29 {{abs() takes 1 argument (2 given)}}
        t = T.alloc_shared(((1, 2)[0:1],), "float32")  # expected-error col 28 {{dimension 0 of an on-chip buffer shape must be a compile-time integer, got (1,)}}
        u = T.alloc_shared((1.5 // 0,), "float32")  # expected-error col 29 {{float floor division by zero}}
        v = T.alloc_shared((4 / 0,), "float32")  # expected-error col 29 {{division by zero}}
        w = T.alloc_shared(("x".zfill(3),), "float32")  # expected-error col 29 {{'str' object has no attribute 'zfill'}}
        x1, x2 = 1, 2, 3  # expected-error col 18 {{cannot unpack 3 values into 2 names}}
        y1, y2 = 5  # expected-error col 18 {{cannot unpack 5 into 2 names}}
