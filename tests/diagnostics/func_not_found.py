# ARGS: --func nope -D N=4
import tilelang.language as T


def kernel(N=1024):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(4) as bx:
            pass

    return main

# expected-error@none {{no kernel named 'nope' in this file}}
