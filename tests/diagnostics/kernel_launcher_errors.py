# Only `with T.Kernel(...)` launches a kernel: other callees in its place are
# errors at the callee, never read as T.Kernel.
import tilelang.language as T


@T.prim_func
def mixed(A: T.Tensor((256,), "float32"), O: T.Tensor((256,), "float32")):
    with T.MixedKernel(2) as bx:  # expected-error col 10 {{T.MixedKernel with two vector sub-cores (sids=2, the default) is not supported yet: the simulator does not model the AIC + 2 AIV core group; T.MixedKernel(n, sids=1) runs the vector tasks on AIV 0 alone}}
        ub = T.alloc_shared((128,), "float32")
        T.copy(A[bx * 128 : bx * 128 + 128], ub)
        T.copy(ub, O[bx * 128 : bx * 128 + 128])


@T.prim_func
def bogus(A: T.Tensor((256,), "float32"), O: T.Tensor((256,), "float32")):
    with T.BogusKernel(2) as bx:  # expected-error col 10 {{'with T.BogusKernel(...)' does not launch a kernel; the launch is 'with T.Kernel(n) as bx:'}}
        ub = T.alloc_shared((128,), "float32")
        T.copy(A[bx * 128 : bx * 128 + 128], ub)
        T.copy(ub, O[bx * 128 : bx * 128 + 128])
