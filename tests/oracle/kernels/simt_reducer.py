"""`T.alloc_reducer` / `T.finalize_reducer` in a `T.SimtVF` region, the SIMT
row-statistics pattern of the upstream RMSNorm examples (issue 7 §3), plus two
factory spellings they use: a latency table read with `dict.get(key, 0)` and
`latency=0` ("not measured: estimate it").

Per row r of X (rows split over the blocks, one row per pipelined step):
    S[r]  = sum over j of X[r, j] * X[r, j]    (op="sum" reducer)
    M[r]  = max over j of X[r, j]              (op="max" reducer)
    Y[r, j] = X[r, j] * (1 / (S[r] / N + eps)) - M[r]
"""

import tilelang
import tilelang.ascend.language as T


def row_stats(rows=32, N=256, eps=1e-5):
    BLOCKS = 4
    # Cycles measured per row width; other widths are estimated (0).
    vf_latency = {512: 700, 1024: 1300}.get(N, 0)

    @T.prim_func
    def main(
        X: T.Tensor((rows, N), "float32"),
        Y: T.Tensor((rows, N), "float32"),
        S: T.Tensor((rows,), "float32"),
        M: T.Tensor((rows,), "float32"),
    ):
        with T.Kernel(BLOCKS) as bid:
            x_ub = T.alloc_shared((N,), "float32")
            y_ub = T.alloc_shared((N,), "float32")
            s_ub = T.alloc_shared((8,), "float32")
            m_ub = T.alloc_shared((8,), "float32")
            for t in T.Pipelined(rows // BLOCKS, num_stages=2):
                row = t * BLOCKS + bid
                T.copy(X[row, :], x_ub)
                with T.SimtVF(threads=64, latency=vf_latency):
                    total = T.alloc_reducer((1,), "float32", op="sum", replication="all")
                    peak = T.alloc_reducer((1,), "float32", op="max")
                    T.clear(total)
                    T.fill(peak, -T.infinity("float32"))
                    for j in T.Parallel(N):
                        total[0] += x_ub[j] * x_ub[j]
                        peak[0] = T.max(peak[0], x_ub[j])
                    T.finalize_reducer(total)
                    T.finalize_reducer(peak)
                    scale = 1.0 / (total[0] / N + eps)
                    for j in T.Parallel(N):
                        y_ub[j] = x_ub[j] * scale - peak[0]
                    s_ub[0] = total[0]
                    m_ub[0] = peak[0]
                T.copy(y_ub, Y[row, :])
                T.copy(s_ub[0:1], S[row : row + 1])
                T.copy(m_ub[0:1], M[row : row + 1])

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(row_stats(), out_idx=[1, 2, 3])
    print(kernel.get_kernel_source())
