# T.MixedKernel(n, sids=1) as (bx, sid) runs the vector tasks on AIV 0 (sid
# is 0); two sub-cores (sids=2, the default) are not simulated yet; any other
# sids, or a launch that does not bind both names, is an error at it.
import tilelang.language as T


@T.prim_func
def three(A: T.Tensor((256,), "float32")):
    with T.MixedKernel(2, sids=3) as (bx, sid):  # expected-error col 32 {{T.MixedKernel takes sids=1 or sids=2 (active vector sub-cores), got 3}}
        ub = T.alloc_shared((128,), "float32")
        T.copy(A[bx * 128 : bx * 128 + 128], ub)


@T.prim_func
def one_name(A: T.Tensor((256,), "float32")):
    with T.MixedKernel(2, sids=1) as bx:  # expected-error col 38 {{T.MixedKernel binds the block index and the vector sub-core index: 'with T.MixedKernel(n, sids=1) as (bx, sid):'}}
        ub = T.alloc_shared((128,), "float32")
        T.copy(A[bx * 128 : bx * 128 + 128], ub)


@T.prim_func
def two(A: T.Tensor((256,), "float32")):
    with T.MixedKernel(2, sids=2) as (bx, sid):  # expected-error col 32 {{T.MixedKernel with two vector sub-cores (sids=2, the default) is not supported yet: the simulator does not model the AIC + 2 AIV core group; T.MixedKernel(n, sids=1) runs the vector tasks on AIV 0 alone}}
        ub = T.alloc_shared((128,), "float32")
        T.copy(A[bx * 128 : bx * 128 + 128], ub)


@T.prim_func
def fine(A: T.Tensor((256,), "float32"), O: T.Tensor((256,), "float32")):
    with T.MixedKernel(2, sids=1) as (bx, sid):
        ub = T.alloc_shared((128,), "float32")
        T.copy(A[bx * 128 + sid * 0 : bx * 128 + 128], ub)
        T.copy(ub, O[bx * 128 : bx * 128 + 128])


@T.prim_func
def same_name(A: T.Tensor((256,), "float32")):
    with T.MixedKernel(2, sids=1) as (bx, bx):  # expected-error col 43 {{the block index and the vector sub-core index need two names, got 'bx' twice}}
        ub = T.alloc_shared((128,), "float32")
        T.copy(A[bx * 128 : bx * 128 + 128], ub)


@T.prim_func
def not_called(A: T.Tensor((256,), "float32")):
    with T.MixedKernel as (bx, sid):  # expected-error col 10 {{T.MixedKernel must be called: 'with T.MixedKernel(n, sids=1) as (bx, sid):'}}
        ub = T.alloc_shared((128,), "float32")
        T.copy(A[bx * 128 : bx * 128 + 128], ub)
