# A sibling module whose factory has a mistake: the error is located in this
# file (imported by import_error_in_module.py).
import tilelang.language as T


def broken_copy(N, tile=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // tile) as bx:
            a = T.alloc_shared((tile,), "float32")
            T.copy(A[bx * tile], a)
            T.vector_magic(a)  # expected-error col 13 {{unknown function T.vector_magic; it is not in the TileLang subset tilesched supports}}
            T.copy(a, B[bx * tile])

    return main


def helper_with_assert():
    assert False, "helpers of the module never run"
