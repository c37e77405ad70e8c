# Regression (upstream TileLang-Ascend's pre-loop row fills of a multi-buffered
# UB). The row-fill loop was a second owner of u0, so each row fill went to one
# version only (the shared counter's): the second iteration stored
# uninitialised rows. Failed in auto and double:
#   error: run-time error: use of uninitialised memory: T.copy u0 -> Y0 writes
#   poison to global memory 'Y0'
# expect_double: pass
import tilelang.language as T


def row_fills():
    @T.prim_func
    def main(
        X0: T.Tensor((3, 64), "float32"),
        Y0: T.Tensor((3, 4, 64), "float32"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u0 = T.alloc_ub((4, 64), "float32")
            T.annotate_buffer_versions({u0: (2, "counter")})
            for r in T.serial(4):
                T.fill(u0[r, :], 0.5)
            for s in T.Pipelined(3, num_stages=2):
                T.copy(X0[s, :], u0[0, :])
                T.copy(u0, Y0[s, :, :])

    return main
