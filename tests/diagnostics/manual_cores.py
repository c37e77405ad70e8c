# A correct kernel in the manual form: the AIC computes X @ W into L0C and
# hands it to both vector cores with two hardware dual copies, one split on
# M (rows: AIV sid gets rows [32 * sid, 32 * sid + 32)) and one split on N
# (columns, N = 64 a multiple of 32); each AIV loads its half of B with a
# software GM -> UB dual copy (the source is the whole tile), computes, and
# stores its halves with software UB -> GM dual copies (the destination is the
# whole tile). Cross-core flags (mode 4) order the hand-off: the AIC sets
# id 3 for AIV 0 and 3 + 16 for AIV 1, each AIV waits id 3. It compiles with
# no diagnostic but the manual form's warning (and `tilesched run` passes).
import tilelang.language as T

# CHECK: with T.Cube():
# CHECK: T.dual_copy(acc, rows_ub)  # FIX
# CHECK-NEXT: T.dual_copy(acc, cols_ub)  # FIX
# CHECK: with T.Vector(vector=2) as sid:
# CHECK-NEXT: T.copy(B[sid * 32:sid * 32 + 32, 0:64], b_ub)  # MTE2
# CHECK: T.copy(out_rows, C[sid * 32:sid * 32 + 32, 0:64])  # MTE3
# CHECK-NEXT: T.copy(out_cols, D[0:64, sid * 32:sid * 32 + 32])  # MTE3


@T.prim_func
def main(
    X: T.Tensor((64, 64), "float16"),
    W: T.Tensor((64, 64), "float16"),
    B: T.Tensor((64, 64), "float32"),
    C: T.Tensor((64, 64), "float32"),
    D: T.Tensor((64, 64), "float32"),
):
    with T.Kernel(1) as bx:
        x_l1 = T.alloc_l1((64, 64), "float16")
        w_l1 = T.alloc_l1((64, 64), "float16")
        acc = T.alloc_l0c((64, 64), "float32")
        rows_ub = T.alloc_ub((32, 64), "float32")
        cols_ub = T.alloc_ub((64, 32), "float32")
        b_ub = T.alloc_ub((32, 64), "float32")
        out_rows = T.alloc_ub((32, 64), "float32")
        out_cols = T.alloc_ub((64, 32), "float32")

        with T.Cube():  # expected-warning col 14 {{this kernel is written in the manual form ('with T.Cube()' / 'with T.Vector()' blocks and their cross-core flags), which tilesched does not schedule yet: every --schedule runs it as written, as upstream does with TL_ENABLE_AUTO_SCHEDULE=False}}
            T.copy(X[0, 0], x_l1)
            T.copy(W[0, 0], w_l1)
            T.ascend_set_flag("MTE2_MTE1", 0)
            T.ascend_wait_flag("MTE2_MTE1", 0)
            T.gemm(x_l1, w_l1, acc, clear_accum=True)
            T.ascend_set_flag("M_FIX", 0)
            T.ascend_wait_flag("M_FIX", 0)
            T.dual_copy(acc, rows_ub)
            T.dual_copy(acc, cols_ub)
            T.ascend_cross_core_set_flag(4, "PIPE_FIX", 3)
            T.ascend_cross_core_set_flag(4, "PIPE_FIX", 19)

        with T.Vector() as sid:
            T.dual_copy(B[0:64, 0:64], b_ub)
            T.ascend_set_flag("MTE2_V", 0)
            T.ascend_wait_flag("MTE2_V", 0)
            T.ascend_cross_core_wait_flag(4, "PIPE_V", 3)
            for i, j in T.Parallel(32, 64):
                out_rows[i, j] = rows_ub[i, j] + b_ub[i, j]
            for i, j in T.Parallel(64, 32):
                out_cols[i, j] = cols_ub[i, j] * 2.0
            T.ascend_set_flag("V_MTE3", 0)
            T.ascend_wait_flag("V_MTE3", 0)
            T.dual_copy(out_rows, C[0:64, 0:64])
            T.dual_copy(out_cols, D[0:64, 0:64])
