# `with T.Stage(k):` fixes the stage of the enclosing loop's modulo schedule
# its statements start in; every misuse is an error at the construct.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32"), C: T.Tensor((1024,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((256,), "float32")
        with T.Stage(0):  # expected-error col 14 {{T.Stage fixes a stage of the enclosing loop's schedule: put it inside a loop body}}
            T.copy(A[0:256], a)
        T.Stage(0)  # expected-error col 9 {{T.Stage(...) can only be used in a 'with' statement}}
        for t in T.Pipelined(4, num_stages=2, annotations={"enable_offset": True}):
            with T.Stage(t):  # expected-error col 26 {{the T.Stage index must be a compile-time integer, got a run-time value}}
                T.copy(A[t * 256:t * 256 + 256], a)
            with T.Stage(-1):  # expected-error col 26 {{a T.Stage index must be between 0 and 63, got -1}}
                T.copy(A[t * 256:t * 256 + 256], a)
            with T.Stage(64):  # expected-error col 26 {{a T.Stage index must be between 0 and 63, got 64}}
                T.copy(A[t * 256:t * 256 + 256], a)
            with T.Stage():  # expected-error col 18 {{T.Stage takes one stage index (0 given)}}
                T.copy(A[t * 256:t * 256 + 256], a)
            with T.Stage(0, 1):  # expected-error col 18 {{T.Stage takes one stage index (2 given)}}
                T.copy(A[t * 256:t * 256 + 256], a)
            with T.Stage(k=0):  # expected-error col 26 {{unknown keyword argument 'k' to T.Stage; it takes no keyword arguments}}
                T.copy(A[t * 256:t * 256 + 256], a)
            with T.Stage(0) as s:  # expected-error col 32 {{'with T.Stage(k)' binds no name: drop the 'as'}}
                T.copy(A[t * 256:t * 256 + 256], a)
            with T.Stage(0):
                with T.Stage(1):  # expected-error col 22 {{T.Stage blocks cannot be nested: this one is inside T.Stage(0) at line 28}}
                    T.copy(A[t * 256:t * 256 + 256], a)
            with T.SimtVF(threads=64):
                with T.Stage(1):  # expected-error col 22 {{T.Stage inside a VF region: a region is one task; write 'with T.Stage(k), T.SimtVF(...):' to give the region a stage}}
                    for i in T.Parallel(256):
                        a[i] = a[i] * 2.0
            with T.SimtVF(threads=64), T.Stage(1):  # expected-error col 40 {{only one item per 'with' is supported in a kernel (besides a leading T.Stage(k))}}
                for i in T.Parallel(256):
                    a[i] = a[i] * 2.0
            with T.Stage(2):
                T.copy(a, C[t * 256:t * 256 + 256])
