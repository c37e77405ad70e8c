# A factory parameter without a default needs -D; the error names it. Other
# parameters get their values from -D or their defaults.
# ARGS: -D M=64 -D unused=1
import tilelang.language as T


def kernel(M, N, block=64, dtype="float32"):  # expected-error col 15 {{parameter 'N' of kernel factory 'kernel' has no default; pass -D N=VALUE}}
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block) as bx:
            a = T.alloc_shared((block,), dtype)

    return main

# expected-warning@none {{-D unused does not name a parameter of any kernel factory}}
