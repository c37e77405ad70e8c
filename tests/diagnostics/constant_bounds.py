# An element index that leaves its buffer for some iteration, when the
# iteration ranges and the shape are known at compile time, is an error at
# compile time, with the variables' values where it does. Guarded accesses
# and indices that are not a sum of known loop variables wait for the run.
import tilelang.language as T


def shifted_read(N=1024):
    @T.prim_func
    def main(A: T.Tensor((4 * N,), "float32"), C: T.Tensor((4 * N,), "float32")):
        with T.Kernel(4, is_npu=True) as bx:
            a_ub = T.alloc_ub((N,), "float32")
            c_ub = T.alloc_ub((N,), "float32")
            T.copy(A[bx * N : bx * N + N], a_ub)
            for i in T.Parallel(N):
                c_ub[i] = a_ub[i + 1]  # expected-error col 27 {{index i + 1 of 'a_ub' reaches 1024 at i = 1023, outside its shape (1024,) (valid indices: 0 to 1023)}}
            T.copy(c_ub, C[bx * N : bx * N + N])

    return main


# A named offset, the block index and a serial loop: the names are followed.
def named_offset_store():
    @T.prim_func
    def main(A: T.Tensor((4096,), "float32"), C: T.Tensor((4096,), "float32")):
        with T.Kernel(4, is_npu=True) as bx:
            c_ub = T.alloc_ub((8,), "float32")
            T.copy(A[0:8], c_ub)
            base = bx * 1024
            for k in T.serial(8):
                C[base + k * 512] = c_ub[k]  # expected-error col 37 {{index base + k * 512 of 'C' reaches 6656 at bx = 3, k = 7, outside its shape (4096,) (valid indices: 0 to 4095)}}

    return main


# Below zero, in the second dimension of a 2-D buffer, and a constant index.
def below_zero_and_constant():
    @T.prim_func
    def main(A: T.Tensor((4, 16), "float32"), C: T.Tensor((4, 16), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            a_ub = T.alloc_ub((4, 16), "float32")
            c_ub = T.alloc_ub((4, 16), "float32")
            T.copy(A, a_ub)
            for r, j in T.Parallel(4, 16):
                c_ub[r, j] = a_ub[r, 15 - j - 1]  # expected-error col 30 {{index 15 - j - 1 of 'a_ub' (dimension 1) reaches -1 at j = 15, outside its shape (4, 16) (valid indices: 0 to 15)}}
            a_ub[4, 0] = 1.0  # expected-error col 26 {{index 4 of 'a_ub' (dimension 0) is outside its shape (4, 16) (valid indices: 0 to 3)}}
            T.copy(c_ub, C)

    return main


# Nothing to say: a guard keeps the index in bounds, a select reads only the
# branch it takes, the range is exact, and `max` is not a sum.
def guarded_and_exact():
    @T.prim_func
    def main(A: T.Tensor((1024,), "float32"), C: T.Tensor((1024,), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            a_ub = T.alloc_ub((1024,), "float32")
            c_ub = T.alloc_ub((1024,), "float32")
            T.copy(A, a_ub)
            for i in T.Parallel(1024):
                c_ub[i] = T.if_then_else(i + 1 < 1024, a_ub[i + 1], 0.0)
            for k in T.serial(1023):
                if k + 1 < 1024:
                    c_ub[k + 1] = a_ub[k] + c_ub[k + 1]
            for k in T.serial(8):
                c_ub[k * 128 + 127] = a_ub[1023 - k * 128]
                c_ub[max(k - 1, 0)] = 0.0
            T.copy(c_ub, C)

    return main
