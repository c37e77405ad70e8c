# Regression (random seed 5405, full profile). Two inner loops of a persistent
# loop own u1 (sibling owners): the first loads it on MTE2, the second
# overwrites it on V and reads it on MTE3. The owner exclusion's carried pair
# (the second loop's MTE3 read before the next iteration's MTE2 load) kept the
# kind RAW when it was turned round, so the lowering ordered the second loop's
# V write before the load instead of its MTE3 read. Failed in none, double and
# auto:
#   error: race on 'u1' bytes [0, 2048): written by T.copy X1 -> u1 (MTE2) here
#   and read by T.copy u1 -> Y0 (MTE3) ..., with no pipe order, barrier or flag
#   chain between them
# expect_double: either
import tilelang.language as T


def sibling_owner_loops():
    @T.prim_func
    def main(
        X1: T.Tensor((2, 20, 8, 64), "float32"),
        Y0: T.Tensor((2, 20, 8, 64), "float32"),
    ):
        with T.Kernel(2, is_npu=True) as bx:
            u0 = T.alloc_ub((8, 64), "float32")
            u1 = T.alloc_ub((8, 64), "float32")
            T.fill(u0, -0.5)
            with T.Persistent(4, num_stages=4) as i:
                for j in range(5):
                    T.copy(X1[bx, (i) * 5 + j, :, :], u1)
                for l in T.serial(2):
                    for r, c in T.Parallel(8, 64):
                        u1[r, c] = T.abs(u0[r, c])
                    T.copy(u1, Y0[bx, (i) * 2 + l, :, :])

    return main
