# Regression (upstream TileLang-Ascend: a fill whose value reads its own
# target, before a loop that claims the 2-version buffer). Materialisation gave
# the load u0[0] outside the owner no version: "internal error: the auto
# lowering produced invalid IR: ... null expression". The claim is now dropped
# with a warning (one version), and the fill's scalar read of u0[0] (S, at
# issue) is ordered before the fill's own write (V).
# expect_double: pass
import tilelang.language as T


def fill_reads_target():
    @T.prim_func
    def main(
        X0: T.Tensor((256,), "float32"),
        Y0: T.Tensor((256,), "float32"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u0 = T.alloc_ub((64,), "float32")
            T.annotate_buffer_versions({u0: 2})
            T.copy(X0[0:64], u0)
            T.fill(u0, u0[3])
            for i in T.Pipelined(4, num_stages=2, annotations={"multi_buffer_eligible": [u0]}):
                for j in T.Parallel(64):
                    u0[j] = u0[j] + X0[i * 64 + j]
                T.copy(u0, Y0[i * 64 : i * 64 + 64])

    return main
