# `factory.get_tir(args)` — the prim_func of a @tilelang.jit factory — is the
# file's own call of the factory (issue 7 §2), like `factory(args)`.
import tilelang
import tilelang.language as T


@tilelang.jit
def scale_kernel(n: int, block: int = 256):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), O: T.Tensor((n,), "float32")):
        with T.Kernel(n // block) as bx:
            a_ub = T.alloc_shared((block,), "float32")
            T.copy(A[bx * block : (bx + 1) * block], a_ub)
            T.copy(a_ub, O[bx * block : (bx + 1) * block])

    return main


def check():
    n = 1024
    prim = scale_kernel.get_tir(n, block=128)  # expected-note col 12 {{factory 'scale_kernel' takes n=1024, block=128 from its call at line 21; -D NAME=VALUE overrides them}}
    return prim


if __name__ == "__main__":
    check()

# CHECK: T.Kernel(8)
# CHECK: T.alloc_shared((128,), "float32")
