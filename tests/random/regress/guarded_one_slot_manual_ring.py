# Regression (random seed 6321, full profile). A one-slot manual ring written
# under `if i % 2 == 0`: the guard rules out the shift of one iteration, so the
# search for the ring's dependency (shifts 1..ring) found none, and the MTE2
# loads of iterations i and i + 2 into the same slot had no barrier between
# them. Failed in none, double and auto:
#   error: race on 'ring' bytes [0, 2048): written by T.copy X1 -> ring (MTE2)
#   here and written by T.copy X1 -> ring (MTE2) at line 24, with no pipe
#   order, barrier or flag chain between them
# expect_double: pass
import tilelang.language as T


def guarded_ring():
    @T.prim_func
    def main(
        X1: T.Tensor((1, 6, 8, 128), "float16"),
        Y1: T.Tensor((1, 6, 8, 128), "float16"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            ring = T.alloc_ub((1, 8, 128), "float16")
            T.annotate_manual_multi_buffer({ring: 1})
            for i in T.serial(6):
                if i % 2 == 0:
                    T.copy(X1[bx, i, :, :], ring[i % 1, :, :])
                    T.copy(ring[i % 1, :, :], Y1[bx, i, :, :])

    return main
