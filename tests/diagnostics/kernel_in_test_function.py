# A codegen-style test file: its only kernels are defined inside test
# functions, which pytest runs. tilesched compiles the first of them, as
# `--func test_copy_through_ub` would, and says so.
import tilelang
import tilelang.language as T


def test_copy_through_ub():  # expected-warning col 1 {{this file has no module-level kernel or factory; compiling the kernel that test function 'test_copy_through_ub' defines (--func NAME compiles another: test_scale)}}
    @T.prim_func
    def main(A: T.Tensor((16,), "float32"), B: T.Tensor((16,), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            a = T.alloc_ub((16,), "float32")
            T.copy(A, a)
            T.copy(a, B)

    tilelang.compile(main)


def test_scale():
    @T.prim_func
    def main(A: T.Tensor((16,), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            a = T.alloc_ub((16,), "float32")
            T.copy(A, a)
            for i in T.Parallel(16):
                a[i] = a[i] * 2.0
            T.copy(a, A)


def test_nothing_to_compile():
    assert True

