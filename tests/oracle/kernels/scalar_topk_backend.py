"""A scalar selection-sort top-k whose running arg-max lives in T.alloc_var
variables declared in one branch of an `if` on a compile-time flag, in the
style of upstream's example_simdvf_scalar_topk.py. Such an `if` is decided
while the file is read (the Python `if` it is in TileLang's builder), so the
variables it declares stay bound after it and `best_idx = e` inside the loop
updates them.

    OUT[r, k] = index of the k-th largest of S[r, :] + 1.0 (smaller index first
                on ties), k < TOPK; the chosen scores are overwritten with -inf
"""

import tilelang
import tilelang.language as T

EXPERTS = 32
TOPK = 4


def scalar_topk_backend(rows=6, cores=4, backend="asc"):
    @T.prim_func
    def main(S: T.Tensor((rows, EXPERTS), "float32"), OUT: T.Tensor((rows, TOPK), "int32")):
        with T.Kernel(cores) as core:
            scores = T.alloc_shared((EXPERTS,), "float32")
            result = T.alloc_shared((TOPK,), "int32")
            if backend == "pto":
                best_val_ub = T.alloc_shared((1,), "float32")
                best_idx_ub = T.alloc_shared((1,), "int32")
            else:
                best_val = T.alloc_var(dtype="float32")
                best_idx = T.alloc_var(dtype="int32")
                shift = 1.0
            for w in T.Pipelined(T.ceildiv(rows, cores), num_stages=1):
                row = w * cores + core
                if row < rows:
                    T.copy(S[row, :], scores)
                    for e in T.serial(EXPERTS):
                        scores[e] = scores[e] + shift
                    for k in T.serial(TOPK):
                        best_val = -T.infinity("float32")
                        best_idx = -1
                        for e in T.serial(EXPERTS):
                            if scores[e] > best_val:
                                best_val = scores[e]
                                best_idx = e
                        result[k] = best_idx
                        scores[best_idx] = -T.infinity("float32")
                    T.copy(result, OUT[row, :])

    return main


if __name__ == "__main__":
    scalar_topk_backend()
