# Regression (random tester, seeds 1065, 1269, 1435, 1538 and 1572 of the full
# profile, reduced by hand). SPEC 2.1: "A count given through one alias and a
# mode given through another combine ({ub: 2, view: "counter"} means 2 versions
# in counter mode); that is not a conflict." The front end rejects it in every
# mode, in either order of the two entries (main @ d112b24, src/frontend/TileOps.cpp):
#   error: buffers 'ub' and 'flat' share one storage but are given different version
#   counts (2 and solver-chosen)
# expect_double: pass
import tilelang.language as T


@T.prim_func
def main(X: T.Tensor((4, 64), "float32"), Y: T.Tensor((4, 64), "float32")):
    with T.Kernel(1, is_npu=True) as bx:
        ub = T.alloc_ub((64,), "float32")
        flat = T.view(ub, (64,))
        T.annotate_buffer_versions({ub: 2, flat: "counter"})
        for i in T.Pipelined(4, num_stages=2):
            T.copy(X[i, :], ub)
            T.copy(flat, Y[i, :])
