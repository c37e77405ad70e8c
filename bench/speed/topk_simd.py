# Top-8 of 256 expert scores per token (4096 tokens) with SIMD registers:
# four 64-lane registers, eight rounds of max-reduce, smallest-index tie-break
# and masking out the winner (the selection loop of upstream's
# example_simdvf_topk_gate.py, written here). bench/run_vs_numpy.py.
import tilelang
import tilelang.language as T

def topk_rows(tokens=4096, experts=256, k=8, cores=64):
    lanes = 64
    per_core = tokens // cores
    @T.prim_func
    def main(Scores: T.Tensor((tokens, experts), "float32"), Idx: T.Tensor((tokens, k), "int32")):
        with T.Kernel(cores) as c:
            s_ub = T.alloc_shared((experts,), "float32")
            o_ub = T.alloc_shared((k,), "int32")
            for w in T.Pipelined(per_core, num_stages=2):
                row = w * cores + c
                T.copy(Scores[row, :], s_ub)
                with T.SimdVF():
                    v = T.simd.alloc_local((4,), "float32")
                    r = T.simd.alloc_local((4,), "int32")
                    full = T.simd.pset(32, "PAT_ALL")
                    one = T.simd.pset(32, "PAT_VL1")
                    low = T.simd.vdup(-T.infinity("float32"), "float32", full)
                    big = T.simd.vdup(T.max_value("int32"), "int32", full)
                    for q in T.unroll(4):
                        v[q] = T.simd.vld(s_ub[q * lanes])
                        r[q] = T.simd.vci(T.int32(q * lanes), "int32")
                    for step in range(k):
                        m = T.simd.vdupv(T.simd.vcmax(T.simd.vmax(T.simd.vmax(v[0], v[1], full),
                                                                   T.simd.vmax(v[2], v[3], full), full), full), full)
                        i0 = T.simd.vsel(r[0], big, T.simd.vcmp(v[0], m, full, "eq"))
                        i1 = T.simd.vsel(r[1], big, T.simd.vcmp(v[1], m, full, "eq"))
                        i2 = T.simd.vsel(r[2], big, T.simd.vcmp(v[2], m, full, "eq"))
                        i3 = T.simd.vsel(r[3], big, T.simd.vcmp(v[3], m, full, "eq"))
                        win = T.simd.vdupv(T.simd.vcmin(T.simd.vmin(T.simd.vmin(i0, i1, full),
                                                                    T.simd.vmin(i2, i3, full), full), full), full)
                        T.simd.vsts(o_ub[step], win, one, "ONEPT_B32")
                        for q in T.unroll(4):
                            v[q] = T.simd.vsel(low, v[q], T.simd.vcmp(r[q], win, full, "eq"))
                T.copy(o_ub, Idx[row, :])
    return main
