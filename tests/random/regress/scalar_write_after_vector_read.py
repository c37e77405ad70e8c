# Regression (random tester, seed 6 of the full profile, minimised). A fill of
# u0 (V) is read by a T.Parallel (V); a loop then updates u0[0, 0] on the scalar
# unit (S). The lowering sets V -> S right after the fill, before the T.Parallel,
# and waits on that: the S write is ordered after the fill but not after the
# T.Parallel that reads u0 (WAR). Fails in none and double (lower @ 293c731):
#   error: race on 'u0' bytes [0, 4): written by store u0 (S) here and read by
#   T.Parallel -> u3 (V) at line 23, with no pipe order, barrier or flag chain between them
# expect_double: pass
import tilelang.language as T


def random_kernel_6():
    @T.prim_func
    def main(
        X1: T.Tensor((1, 1, 8, 1024), "float32"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u0 = T.alloc_ub((8, 1024), "float32")
            u3 = T.alloc_ub((8, 1024), "float32")

            T.fill(u0, 0.75)
            T.copy(X1[bx, 0, :, :], u3)
            for r, c in T.Parallel(8, 1024):
                u3[r, c] = T.abs(T.max(u3[r, c], u0[r, c])) + 1.0
            for m in T.serial(1):
                if m % 3 == 1:
                    T.copy(X1[bx, m, :, :], u0)
                else:
                    u0[0, 0] = u0[0, 0] * 2.0 + 1.0

    return main
