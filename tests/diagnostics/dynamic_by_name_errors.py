# A named T.dynamic size where a constant is needed: the message says it is
# the T.dynamic size and suggests -D, never that T.dynamic is misplaced.
import tilelang.language as T


def uses_size(N=32):
    m = T.dynamic("m")
    half = m // 2

    @T.prim_func
    def main(A: T.Tensor((m, N), "float32")):
        with T.Kernel(4) as bx:
            t = T.alloc_shared((m,), "float32")  # expected-error col 32 {{dimension 0 of an on-chip buffer shape must be a compile-time integer, got a run-time value of the T.dynamic size 'm'; pass -D m=VALUE to make it a constant}}
            u = T.alloc_shared((half,), "float32")  # expected-error col 33 {{'half' could not be evaluated at compile time: factory code cannot compute with the T.dynamic size 'm' (its value is known only at run time); pass -D m=VALUE to make it a constant}}

    return main
