# Errors of `with T.Kernel(...), <VF region>` and of names across launches.
import tilelang.language as T


def errors(N=64):
    @T.prim_func
    def not_vf(A: T.Tensor((N,), "float32")):
        with T.Kernel(2) as bx, T.Persistent(4) as t:  # expected-error col 33 {{the item after 'T.Kernel(...)' in one 'with' must be a VF region: 'with T.Kernel(n) as bx, T.SimtVF(threads=K):' or '..., T.SimdVF():'}}
            A[bx] = 1.0

    @T.prim_func
    def three_items(A: T.Tensor((N,), "float32")):
        with T.Kernel(2) as bx, T.SimtVF(threads=8), T.SimdVF():  # expected-error col 54 {{'with T.Kernel(...)' takes at most one more item, a VF region: 'with T.Kernel(n) as bx, T.SimtVF(threads=K):'}}
            A[bx] = 1.0

    @T.prim_func
    def vf_as(A: T.Tensor((N,), "float32")):
        with T.Kernel(2) as bx, T.SimtVF(threads=8) as t:  # expected-error col 56 {{'T.SimtVF(...)' binds no name; drop 'as'}}
            A[bx] = 1.0

    @T.prim_func
    def vf_threads(A: T.Tensor((N,), "float32")):
        with T.Kernel(2) as bx, T.SimtVF():  # expected-error col 33 {{T.SimtVF needs threads=K}}
            A[bx] = 1.0

    @T.prim_func
    def nested_vf(A: T.Tensor((N,), "float32")):
        with T.Kernel(2) as bx, T.SimtVF(threads=8):
            with T.SimdVF():  # expected-error col 13 {{VF regions cannot be nested}}
                A[bx] = 1.0

    @T.prim_func
    def scoped(A: T.Tensor((N,), "float32")):
        with T.Kernel(2) as bx:
            a_ub = T.alloc_shared((N,), "float32")
            T.copy(A, a_ub)
        with T.Kernel(1):
            T.copy(a_ub, A)  # expected-error col 20 {{name 'a_ub' is not defined}}

    return not_vf
