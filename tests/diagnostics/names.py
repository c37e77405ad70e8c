# A name the kernel needs that was never bound is an error naming it; a name
# bound to something that could not be evaluated says why.
import tilelang.language as T
import torch

SCALE = torch.float16
BROKEN = 1 // 0


def kernel(N=256):
    block = N // 4
    weird = undefined_helper(N)

    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((blockk,), "float32")  # expected-error col 33 {{name 'blockk' is not defined}}
            b = T.alloc_shared((weird,), "float32")  # expected-error col 33 {{'weird' could not be evaluated at compile time: name 'undefined_helper' is not defined}}
            c = T.alloc_shared((BROKEN,), "float32")  # expected-error col 33 {{'BROKEN' could not be evaluated at compile time: integer division by zero}}
            d = T.alloc_shared((block,), SCALE)  # expected-error col 42 {{expected a dtype such as "float16" or T.float16, got 'torch.float16'}}
            T.copy(A[0:block], missing)  # expected-error col 32 {{name 'missing' is not defined}}

    return main
