# `with T.Stage(k)` fixes the stages (load 0, compute 1, store 2) and the
# solver keeps them; the stage-1 computes sit under `if tile % 3 == 0`, so the
# staged loop tests the condition of iteration tile - 1 there.
# PASSES: analyze, schedule, version-modes, materialize-versions, insert-synchronization, verify-lowered-sync
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1536,), "float32"), C: T.Tensor((1536,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((256,), "float32")
        c = T.alloc_shared((256,), "float32")
        for tile in T.Pipelined(6, num_stages=2, annotations={"enable_offset": True}):
            with T.Stage(0):
                T.copy(A[tile * 256:tile * 256 + 256], a)
            if tile % 3 == 0:
                with T.Stage(1), T.SimtVF(threads=64):
                    for i in T.Parallel(256):
                        c[i] = a[i] * 2.0
            else:
                with T.Stage(1), T.SimtVF(threads=64):
                    for i in T.Parallel(256):
                        c[i] = a[i] + 1.0
            with T.Stage(2):
                T.copy(c, C[tile * 256:tile * 256 + 256])

# CHECK: for tile in T.Pipelined(8, num_stages=2, annotations={"enable_offset": True}):
# CHECK: if tile < 6:
# CHECK-NEXT: T.copy(A[tile * 256:tile * 256 + 256], a[tile % 2, 0:256])  # MTE2
# CHECK: if tile >= 1 and tile < 7:
# CHECK-NEXT: if (tile - 1) % 3 == 0:
# CHECK: c[(tile - 1) % 2, i] = a[(tile - 1) % 2, i] * 2.0
# CHECK: if tile >= 1 and tile < 7:
# CHECK-NEXT: if not (tile - 1) % 3 == 0:
# CHECK: c[(tile - 1) % 2, i_1] = a[(tile - 1) % 2, i_1] + 1.0
# CHECK: if tile >= 2 and tile < 8:
# CHECK-NEXT: T.copy(c[(tile - 2) % 2, 0:256], C[(tile - 2) * 256:(tile - 2) * 256 + 256])  # MTE3
# CHECK-NOT: with T.Stage
# CHECK-NOT: pipe_barrier
