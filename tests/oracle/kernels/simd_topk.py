"""A per-row top-3 in T.simd registers, in the style of upstream's
example_simdvf_topk_gate.py: a row of 128 float32 scores in an array of two
registers (T.simd.alloc_local), index ramps (vci), the row maximum reduced
into lane 0 (vcmax) and broadcast (vdupv), per-lane predicates from
comparisons (vcmp) selecting indices or a sentinel (vsel), the smallest
winning index (vcmin) stored from lane 0, and the winner masked out. Also a
lane-ordered sum of the first 16 lanes (vcadd under a PAT_VL16 mask).

    IDX[r, k] = the k-th largest score of row r (smaller index on ties), k < 3
    SUM[r]    = S[r, 0] + S[r, 1] + ... + S[r, 15]   (float32, in order)
"""

import tilelang
import tilelang.language as T


def simd_topk(rows=4):
    @T.prim_func
    def main(S: T.Tensor((rows, 128), "float32"), IDX: T.Tensor((rows, 8), "int32"), SUM: T.Tensor((rows, 8), "float32")):
        with T.Kernel(rows) as r:
            s_ub = T.alloc_shared((128,), "float32")
            idx_ub = T.alloc_shared((8,), "int32")
            sum_ub = T.alloc_shared((8,), "float32")
            T.copy(S[r, :], s_ub)
            T.fill(idx_ub, -1)
            T.fill(sum_ub, 0.0)
            with T.SimdVF():
                v = T.simd.alloc_local((2,), "float32")
                ix = T.simd.alloc_local((2,), "int32")
                full = T.simd.pset(32)
                one = T.simd.pset(32, "PAT_VL1")
                neg_inf = T.simd.vdup(-T.infinity(T.float32), "float32", full)
                big = T.simd.vdup(T.max_value(T.int32), "int32", full)
                for i in T.unroll(2):
                    v[i] = T.simd.vld(s_ub[i * 64])
                    ix[i] = T.simd.vci(T.int32(i * 64), "int32")
                for k in range(3):
                    mx = T.simd.vdupv(T.simd.vcmax(T.simd.vmax(v[0], v[1], full), full), full)
                    c0 = T.simd.vsel(ix[0], big, T.simd.vcmp(v[0], mx, full, "eq"))
                    c1 = T.simd.vsel(ix[1], big, T.simd.vcmp(v[1], mx, full, "eq"))
                    win = T.simd.vdupv(T.simd.vcmin(T.simd.vmin(c0, c1, full), full), full)
                    T.simd.vsts(idx_ub[k], win, one, "ONEPT_B32")
                    for i in T.unroll(2):
                        v[i] = T.simd.vsel(neg_inf, v[i], T.simd.vcmp(ix[i], win, full, "eq"))
                head = T.simd.pset(32, "PAT_VL16")
                total = T.simd.vcadd(T.simd.vld(s_ub[0]), head)
                T.simd.vsts(sum_ub[0], total, one, "ONEPT_B32")
            T.copy(idx_ub, IDX[r, :])
            T.copy(sum_ub, SUM[r, :])

    return main


if __name__ == "__main__":
    simd_topk()
