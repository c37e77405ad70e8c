# T.reshape(buf, shape) is an alias view like T.view(buf, shape): the same
# storage seen with another shape, the element count unchanged.
import tilelang.language as T


def rows_from_flat(M=8, N=32):
    @T.prim_func
    def main(A: T.Tensor((M * N,), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(1) as bx:
            flat = T.alloc_shared((M * N,), "float32")
            T.copy(A, flat)
            grid = T.reshape(flat, (M, N))
            T.copy(grid, B)

    return main

# CHECK: flat = T.alloc_shared((256,), "float32")
# CHECK: grid = T.view(flat, (8, 32), "float32")
# CHECK: T.copy(grid, B)
