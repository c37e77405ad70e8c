"""Every way a kernel tests a run-time value for its truth, for every kind of
value: a T.alloc_var (bool, int32, float32), a global-tensor element (int32 and
float32), a let (`x = gate[w] - 1`) and a scalar parameter. Python's rule
holds for each: a number is true when it is not zero (NaN is true, -0.0 is
false), and a T.alloc_var is tested by its value, never as an object (upstream
test_tilelang_ascend_scalar_gm_rw.py writes `if g:` on one).

    OUT[w, c] = 1 when case c's test holds for row w, else 0 (ternaries: 5 / 7)
"""

import tilelang
import tilelang.language as T

CASES = 18


def truth_values(W=16):
    @T.prim_func
    def main(
        gate: T.Tensor((W,), "int32"),
        fl: T.Tensor((W,), "float32"),
        thr: T.int32,
        OUT: T.Tensor((W, CASES), "int32"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            for w in T.serial(W):
                g = T.alloc_var(T.bool, gate[w])
                n = T.alloc_var(T.int32, gate[w])
                x = gate[w] - 1
                for c in T.serial(CASES):
                    OUT[w, c] = 0
                if g:
                    OUT[w, 0] = 1
                if n:
                    OUT[w, 1] = 1
                if gate[w]:
                    OUT[w, 2] = 1
                if fl[w]:
                    OUT[w, 3] = 1
                if x:
                    OUT[w, 4] = 1
                if thr:
                    OUT[w, 5] = 1
                if not g:
                    OUT[w, 6] = 1
                if not x:
                    OUT[w, 7] = 1
                if g and x:
                    OUT[w, 8] = 1
                if n or fl[w]:
                    OUT[w, 9] = 1
                OUT[w, 10] = 5 if g else 7
                OUT[w, 11] = 5 if x else 7
                OUT[w, 12] = T.if_then_else(g, 5, 7)
                if x:
                    OUT[w, 13] = 1
                elif g:
                    OUT[w, 13] = 2
                else:
                    OUT[w, 13] = 3
                OUT[w, 14] = T.cast(g, "int32")
                h = T.alloc_var(T.bool)
                h = n > 1
                if h:
                    OUT[w, 15] = 1
                f = T.alloc_var(T.float32, fl[w])
                if f:
                    OUT[w, 16] = 1
                OUT[w, 17] = 5 if not f else 7

    return main


if __name__ == "__main__":
    truth_values()
