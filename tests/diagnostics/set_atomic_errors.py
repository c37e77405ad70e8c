# T.set_atomic / T.set_atomic_none: the supported ops and accumulate dtypes,
# the destination's dtype, and a loop or branch that leaves the mode changed.
import tilelang.language as T


def bad_atomic(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), H: T.Tensor((N,), "float16")):
        with T.Kernel(2) as bx:
            a = T.alloc_shared((N,), "float32")
            h = T.alloc_shared((N,), "float16")
            T.copy(A, a)
            T.copy(H, h)
            T.set_atomic("mul")  # expected-error col 26 {{T.set_atomic supports the ops "add", "max" and "min", got "mul"}}
            T.set_atomic("add", "int64")  # expected-error col 33 {{T.set_atomic does not support dtype int64; the store-mode atomics accumulate float32, float16, bfloat16, int8, int16 or int32}}
            T.set_atomic("add", "float32", 1)  # expected-error col 13 {{T.set_atomic takes an op and a dtype (3 given)}}
            T.set_atomic("add", scope="gm")  # expected-error col 33 {{unknown keyword argument 'scope' to T.set_atomic; accepted: op, dtype}}
            T.set_atomic("add")
            T.copy(h, H)  # expected-error col 13 {{this store to 'H' (float16) is atomic under T.set_atomic("add", "float32") at line 18, whose accumulate dtype must be the destination's; use T.set_atomic("add", "float16")}}
            T.copy(a, A)
            T.set_atomic_none(1)  # expected-error col 13 {{T.set_atomic_none() takes no arguments}}
            T.set_atomic_none()
            for i in T.serial(2):
                T.set_atomic("max")  # expected-error col 17 {{T.set_atomic changes the atomic store mode inside this loop and leaves it changed at its end; arm T.set_atomic and clear it with T.set_atomic_none() in the same loop, or around it}}
                T.copy(a, A)
            if bx == 0:
                T.set_atomic("add")
                T.copy(a, A)
                T.set_atomic_none()
            for i in T.Parallel(N):
                T.set_atomic("add")  # expected-error col 17 {{T.set_atomic is not allowed inside a T.Parallel loop}}
            x = T.set_atomic("add")  # expected-error col 17 {{T.set_atomic(...) is a statement and has no value}}
            T.set_atomic("min", T.float32)  # expected-warning col 13 {{T.set_atomic is never cleared: every store to global memory up to the end of the kernel accumulates; end the atomic stores with T.set_atomic_none()}}
            T.copy(a, A)

    return main
