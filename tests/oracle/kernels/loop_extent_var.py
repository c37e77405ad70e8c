"""An inner loop whose trip count reads a T.alloc_var that its own body
updates from a UB element (the shape a random kernel found, issue 17 §1):
under multi-buffering the version index of the body's buffers must not re-read
the variable on the vector pipe while the scalar unit updates it. The second
nest also reads the variable in the vector body.

    n = 3; for o in 0..4: for _ in range(n % 2): C[o] = A[o] + 1; n += T7[486]
    m = 2; for o in 0..4: for _ in range(m % 3): D[o] = A[o] * m; m += T7[5]
"""

import tilelang
import tilelang.language as T

TILE = 512
OUTER = 5


def loop_extent_var(dtype="float32"):
    @T.prim_func
    def main(
        A: T.Tensor((OUTER * TILE,), dtype),
        T7: T.Tensor((TILE,), "int32"),
        C: T.Tensor((OUTER * TILE,), dtype),
        D: T.Tensor((OUTER * TILE,), dtype),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            a_ub = T.alloc_ub((TILE,), dtype)
            b_ub = T.alloc_ub((TILE,), dtype)
            x_ub = T.alloc_ub((TILE,), dtype)
            y_ub = T.alloc_ub((TILE,), dtype)
            t7 = T.alloc_ub((TILE,), "int32")
            n0 = T.alloc_var(T.int32, 3)
            m0 = T.alloc_var(T.int32, 2)
            T.copy(T7, t7)
            for o0 in T.unroll(OUTER):
                for kk0 in T.serial(n0 % 2):
                    T.copy(A[o0 * TILE : o0 * TILE + TILE], a_ub)
                    for i in T.Parallel(TILE):
                        b_ub[i] = a_ub[i] + 1.0
                    T.copy(b_ub, C[o0 * TILE : o0 * TILE + TILE])
                    n0 = n0 + T.cast(t7[486], "int32")
            for o1 in T.serial(OUTER):
                for kk1 in T.serial(m0 % 3):
                    T.copy(A[o1 * TILE : o1 * TILE + TILE], x_ub)
                    for i in T.Parallel(TILE):
                        y_ub[i] = x_ub[i] * T.cast(m0, dtype)
                    T.copy(y_ub, D[o1 * TILE : o1 * TILE + TILE])
                    m0 = m0 + t7[5]

    return main


if __name__ == "__main__":
    loop_extent_var()
