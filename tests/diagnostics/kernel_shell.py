# The kernel shell: parameters, T.Kernel and what a prim_func body may hold.
import tilelang.language as T


def grids(N=256):
    @T.prim_func
    def multi_dim(A: T.Tensor((N, N), "float32")):
        with T.Kernel(4, 4) as (bx, by):  # expected-error col 14 {{multi-dimensional grids are not supported; use a 1-D grid 'T.Kernel(n) as bx'}}
            a = T.alloc_shared((N,), "float32")

    @T.prim_func
    def tuple_grid(A: T.Tensor((N,), "float32")):
        with T.Kernel((4, 2)) as bx:  # expected-error col 23 {{multi-dimensional grids are not supported; use a 1-D grid 'T.Kernel(n) as bx'}}
            a = T.alloc_shared((N,), "float32")

    @T.prim_func
    def zero_grid(A: T.Tensor((N,), "float32")):
        with T.Kernel(N - N) as bx:  # expected-error col 23 {{grid size must be at least 1, got 0}}
            a = T.alloc_shared((N,), "float32")

    @T.prim_func
    def no_grid(A: T.Tensor((N,), "float32")):
        with T.Kernel() as bx:  # expected-error col 14 {{T.Kernel needs the grid size: 'T.Kernel(n) as bx'}}
            a = T.alloc_shared((N,), "float32")

    @T.prim_func
    def runtime_grid(A: T.Tensor((N,), "float32"), n: T.int32):
        with T.Kernel(n) as bx:  # expected-error col 23 {{grid size must be a compile-time integer, got a run-time value}}
            a = T.alloc_shared((N,), "float32")

    @T.prim_func
    def no_target(A: T.Tensor((N,), "float32")):
        with T.Kernel(4):  # legal: no name is bound to the block index
            A[bx] = 1.0  # expected-error col 15 {{name 'bx' is not defined}}

    @T.prim_func
    def sub_core(A: T.Tensor((N,), "float32")):
        with T.Kernel(4, is_npu=True) as (cid, vid):  # expected-error col 42 {{'as (cid, vid)' binds a vector sub-core index, which T.Kernel does not give: use 'as bx', or launch with 'T.MixedKernel(n, sids=1) as (bx, sid)'}}
            a = T.alloc_shared((N,), "float32")

    @T.prim_func
    def bad_kwarg(A: T.Tensor((N,), "float32")):
        with T.Kernel(4, thread=128) as bx:  # expected-error col 26 {{unknown keyword argument 'thread' to T.Kernel; accepted: threads, is_npu, prelude}}
            a = T.alloc_shared((N,), "float32")

    @T.prim_func
    def not_called(A: T.Tensor((N,), "float32")):
        with T.Kernel as bx:  # expected-error col 14 {{T.Kernel must be called: 'with T.Kernel(grid) as bx:'}}
            a = T.alloc_shared((N,), "float32")

    @T.prim_func
    def nested(A: T.Tensor((N,), "float32")):
        with T.Kernel(4) as bx:
            with T.Kernel(2) as by:  # expected-error col 13 {{nested 'with T.Kernel' blocks are not supported}}
                a = T.alloc_shared((N,), "float32")

    @T.prim_func  # expected-error col 5 {{kernel 'no_kernel_block' has no 'with T.Kernel(...)' block}}
    def no_kernel_block(A: T.Tensor((N,), "float32")):
        a = 1

    @T.prim_func
    def stray_statement(A: T.Tensor((N,), "float32")):
        for i in range(3):  # expected-error col 9 {{only 'with T.Kernel(...)' blocks and constants are supported in a @T.prim_func body}}
            pass
        with T.Kernel(4) as bx:
            a = T.alloc_shared((N,), "float32")

    return multi_dim


def params(N=256):
    @T.prim_func
    def main(
        A,  # expected-error col 9 {{kernel parameter 'A' needs a type: T.Tensor(shape, dtype) or a scalar dtype}}
        B: int,  # expected-error col 12 {{unsupported type for kernel parameter 'B'; use T.Tensor(shape, dtype) or a scalar dtype such as T.float32}}
        C: T.Tensor((N,)),  # expected-error col 12 {{T.Tensor needs a shape and a dtype: T.Tensor((M, N), "float16")}}
        D: T.Tensor((N, 0), "float32"),  # expected-error col 12 {{tensor dimensions must be positive, got 0}}
        E: T.Tensor((N, 1.5), "float32"),  # expected-error col 12 {{tensor dimensions must be integers}}
        F: T.Tensor((N,), "float128"),  # expected-error col 12 {{unknown dtype 'float128'; expected one of bool, int8, int16, int32, int64, uint8, uint16, uint32, float16, bfloat16, float32, float8_e4m3fn, float8_e5m2}}
        *rest,  # expected-error col 10 {{'*args' and '**kwargs' are not supported in a kernel signature}}
    ):
        with T.Kernel(4) as bx:
            a = T.alloc_shared((N,), "float32")

    return main
