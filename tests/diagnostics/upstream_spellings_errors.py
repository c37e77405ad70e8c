# T.gemm(..., unit_flag_ctrl=u) takes 0..3 or a run-time integer; SimtVF threads
# take an integer or a tuple of positive integers.
import tilelang.language as T


def bad_spellings(M=32, N=32, K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_l1((M, K), "float16")
            b = T.alloc_l1((K, N), "float16")
            c = T.alloc_l0c((M, N), "float32")
            u = T.alloc_shared((M,), "float32")
            T.gemm(a, b, c, unit_flag_ctrl=4)  # expected-error col 44 {{unit_flag_ctrl must be 0, 1, 2 or 3, got 4}}
            T.gemm(a, b, c, unit_flag_ctrl=1.5)  # expected-error col 44 {{unit_flag_ctrl must be an integer (0 to 3), got 1.5}}
            T.gemm(a, b, c, unit_flag_ctrl=T.Select(bx == 0, 3, 2))
            with T.SimtVF(threads=(16, 0)):  # expected-error col 35 {{threads must be positive}}
                for i in T.Parallel(M):
                    u[i] = 0.0
            with T.SimtVF(threads=()):  # expected-error col 35 {{threads must be an integer or a tuple of 1 to 3 integers}}
                for i in T.Parallel(M):
                    u[i] = 0.0
            with T.SimtVF(threads=(2, 2, 2, 2)):  # expected-error col 35 {{threads must be an integer or a tuple of 1 to 3 integers}}
                for i in T.Parallel(M):
                    u[i] = 0.0

    return main


def gemm_unit_flag_default(M=32):
    @T.prim_func
    def main(A: T.Tensor((M, M), "float16"), C: T.Tensor((M, M), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_L1((M, M), "float16")
            b = T.alloc_L1((M, M), "float16")
            c = T.alloc_L0C((M, M), "float32")
            T.copy(A, a)
            T.copy(A, b)
            # None is the keyword's default: no unit flag, as when it is absent.
            T.gemm(a, b, c, clear_accum=True, unit_flag_ctrl=None)
            T.copy(c, C)

    return main
