# Random kernel, seed 1429, profile full (tests/random/gen_kernel.py), minimised.
#   tilesched run THIS_FILE --schedule none|double|serial
# Found: `double` printed "output Y1: 64 of 160 elements differ" with zero races.
# The write to u2 inside the zero-trip loop `l` counted as write-first, so loop
# `j` owned u2 next to loop `i` and read the version `i` left two tiles back.
# A write inside a loop that may not run initialises nothing after it.
# expect_double: pass
import tilelang.language as T


def random_kernel_1429():
    @T.prim_func
    def main(
        X0: T.Tensor((1, 5, 2, 16), "float16"),
        X1: T.Tensor((1, 5, 2, 16), "float16"),
        Y1: T.Tensor((1, 5, 2, 16), "float16"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u2 = T.alloc_ub((2, 16), "float16")
            u4 = T.alloc_ub((2, 16), "float16")
            u5 = T.alloc_ub((2, 16), "float16")

            for i in T.serial(5):
                T.copy(X1[bx, i, :, :], u4)
                T.copy(X0[bx, i, :, :], u5)
                for r, c in T.Parallel(2, 16):
                    u2[r, c] = u5[r, c] - u4[r, c] - 0.25
            for j in T.serial(3):
                for l in T.serial(0):
                    T.copy(X0[bx, (j) * 1 + l, :, :], u2)
                T.copy(u2, Y1[bx, j, :, :])

    return main
