# ARGS: --func vecadd
# A --func one edit away from a kernel's name suggests it.
import tilelang.language as T


def vec_add(N=1024):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(4) as bx:
            pass

    return main

# expected-error@none {{no kernel named 'vecadd' in this file; did you mean 'vec_add'? (its kernels: vec_add (factory))}}
