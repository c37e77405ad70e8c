# T.reshape keeps the element count and takes no dtype.
import tilelang.language as T


def bad_reshape(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            flat = T.alloc_shared((N,), "float32")
            smaller = T.reshape(flat, (4, 8))  # expected-error col 39 {{T.reshape keeps the number of elements: 'flat' has 64, the new shape 32}}
            typed = T.reshape(flat, (8, 8), "float16")  # expected-error col 21 {{T.reshape takes (buf, shape) (3 given)}}
            g = T.reshape(A, (8, 8))  # expected-error col 17 {{T.reshape of a global tensor is not supported yet; declare the parameter with the shape the kernel reads, or view the on-chip buffer instead}}
            T.reshape(flat, (8, 8))  # expected-error col 13 {{T.reshape() must be assigned to a name: 'buf = T.reshape(...)'}}

    return main


def reshape_before_kernel(rows=4, cols=16):
    @T.prim_func
    def main(x: T.Tensor((rows, cols), "float32"), y: T.Tensor((rows * cols,), "float32")):
        flat = T.reshape(x, (rows * cols,))  # expected-error col 16 {{T.reshape of a global tensor is not supported yet; declare the parameter with the shape the kernel reads, or view the on-chip buffer instead}}
        with T.Kernel(1) as bx:
            ub = T.alloc_shared((rows * cols,), "float32")
            T.copy(x, ub)
            T.copy(ub, y)

    return main
