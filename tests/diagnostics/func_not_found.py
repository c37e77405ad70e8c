# ARGS: --func nope -D N=4
import tilelang.language as T


def kernel(N=1024):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(4) as bx:
            pass

    return main


@T.prim_func
def helper_kernel(A: T.Tensor((8,), "float32")):
    with T.Kernel(1) as bx:
        pass

# A --func that names nothing lists what the file has (issue 22).
# expected-error@none {{no kernel named 'nope' in this file (its kernels: kernel (factory), helper_kernel (prim_func))}}
