# Regression (written by hand from upstream TileLang-Ascend kernels: a UB
# element used directly as an operand). The scalar unit reads p[.] when it
# issues the statement: as a loop's trip count, a copy's slice start and a
# fill value. No MTE2 -> S wait was emitted after the loads into p, and no
# S -> MTE2 wait before the next overwrite of p. Failed in auto, none and double:
#   error: race on 'p' bytes [0, 4): read by for _i (S) here and written by
#   T.copy P -> p (MTE2) at line 25, with no pipe order, barrier or flag chain between them
# expect_double: pass
import tilelang.language as T


def ub_scalar_operands():
    @T.prim_func
    def main(
        P: T.Tensor((32,), "int32"),
        X: T.Tensor((256,), "float32"),
        Y: T.Tensor((128,), "float32"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            p = T.alloc_ub((8,), "int32")
            a = T.alloc_ub((32,), "float32")
            b = T.alloc_ub((32,), "float32")
            for s in T.Pipelined(4, num_stages=2):
                T.copy(P[s * 8 : s * 8 + 8], p)
                T.copy(X[p[1] % 8 * 32 : p[1] % 8 * 32 + 32], a)
                T.fill(b, a[s])
                for _i in T.serial(p[0] % 3 + 1):
                    for j in T.Parallel(32):
                        b[j] = b[j] + a[j]
                T.copy(b, Y[s * 32 : s * 32 + 32])

    return main
