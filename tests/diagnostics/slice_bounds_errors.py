# A slice's extent is simplified through the kernel names' values; it stays an
# error when it really depends on a run-time value.
import tilelang.language as T


def bad_slices(N=1024, tile=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), idx: T.Tensor((4,), "int32"), n: T.int32):
        with T.Kernel(4) as bx:
            a = T.alloc_shared((tile,), "float32")
            begin = bx * tile
            end = begin + tile
            T.copy(A[begin:end], a)
            end2 = begin + n
            T.copy(A[begin:end2], a)  # expected-error col 22 {{the extent of this slice of 'A' is not a compile-time constant}}
            first = idx[0]
            last = first + tile
            T.copy(A[first:last], a)
            other = idx[1] + tile
            T.copy(A[first:other], a)  # expected-error col 22 {{the extent of this slice of 'A' is not a compile-time constant}}
            for i in T.serial(2):
                lo = begin + i
                hi = lo + tile
                T.copy(A[lo:hi], a)
                hi2 = begin + tile * i
                T.copy(A[lo:hi2], a)  # expected-error col 26 {{the extent of this slice of 'A' is not a compile-time constant}}

    return main
