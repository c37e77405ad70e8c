# T.reshape keeps the element count and takes no dtype.
import tilelang.language as T


def bad_reshape(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            flat = T.alloc_shared((N,), "float32")
            smaller = T.reshape(flat, (4, 8))  # expected-error col 39 {{T.reshape keeps the number of elements: 'flat' has 64, the new shape 32}}
            typed = T.reshape(flat, (8, 8), "float16")  # expected-error col 21 {{T.reshape takes (buf, shape) (3 given)}}
            g = T.reshape(A, (8, 8))
            h = T.reshape(A, (8, 9))  # expected-error col 30 {{T.reshape keeps the number of elements: 'A' has 64, the new shape 72}}
            T.reshape(flat, (8, 8))  # expected-error col 13 {{T.reshape() must be assigned to a name: 'buf = T.reshape(...)'}}

    return main


def reshape_before_kernel(rows=4, cols=16):
    @T.prim_func
    def main(x: T.Tensor((rows, cols), "float32"), y: T.Tensor((rows * cols,), "float32")):
        flat = T.reshape(x, (rows * cols,))
        T.reshape(x, (rows * cols,))  # expected-error col 9 {{only 'with T.Kernel(...)' blocks and constants are supported in a @T.prim_func body}}
        with T.Kernel(1) as bx:
            ub = T.alloc_shared((rows * cols,), "float32")
            T.copy(x, ub)
            T.copy(ub, y)

    return main


m = T.dynamic("m")


# A view of a global tensor needs its size; T.Tensor(shape, dtype, X.data) is
# a view and must be named.
def dynamic_view(cols=16):
    @T.prim_func
    def main(x: T.Tensor((m, cols), "float32"), y: T.Tensor((64,), "float32")):
        flat = T.reshape(x, (64,))  # expected-error col 16 {{T.reshape of a global tensor with a T.dynamic size is not supported yet}}
        halves = T.Tensor((2, 32), "float32", y.data)
        with T.Kernel(1) as bx:
            ub = T.alloc_shared((2, 32), "float32")
            T.copy(halves, ub)
            T.copy(ub, halves)

    return main
