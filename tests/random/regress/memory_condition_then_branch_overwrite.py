# Regression (found by hand while checking `run --compare` on several launches,
# 2026-11-30): an `if` whose condition reads UB (scalar unit) followed, inside
# the taken branch, by vector writes to the buffer it read. The lowering put a
# barrier before the condition (RAW) but none after it, so in auto, none and
# double the simulator reported a race between the scalar read of `v[0]` and
# the T.Parallel write of `v` (main @ 44f3303, src/transform/SyncInsertion.cpp).
# expect_double: pass
import tilelang.language as T


@T.prim_func
def main(X: T.Tensor((256,), "float32"), Y: T.Tensor((256,), "float32")):
    with T.Kernel(1, is_npu=True) as bx:
        v = T.alloc_ub((256,), "float32")
        T.copy(X, v)
        for i in T.Parallel(256):
            v[i] = 7.0
        if v[0] == 7.0:
            for r in T.serial(4):
                for i in T.Parallel(256):
                    v[i] = v[i] * 0.5
        T.copy(v, Y)
