# Unknown dialect names get the nearest known one (issue 22); names too far
# from any get none.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32"), B: T.Tensor((1024,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_ub((1024,), "float32")
        T.cpy(A, a)  # expected-error col 9 {{unknown function T.cpy; it is not in the TileLang subset tilesched supports; did you mean T.copy?}}
        T.fil(a, 0.0)  # expected-error col 9 {{unknown function T.fil; it is not in the TileLang subset tilesched supports; did you mean T.fill?}}
        T.reduce_summ(a, a)  # expected-error col 9 {{unknown function T.reduce_summ; it is not in the TileLang subset tilesched supports; did you mean T.reduce_sum?}}
        T.frobnicate(a)  # expected-error col 9 {{unknown function T.frobnicate; it is not in the TileLang subset tilesched supports}}
        T.copy(a, B)
