# A SIMT RMSNorm of 4096 rows x 4096 float32 (the shape of upstream's
# example_rmsnorm.py, written here): one row per pipelined iteration, a SIMT
# region of 128 threads squares and sums the row (a reducer), then scales it.
# Timed by bench/run_vs_numpy.py against numpy doing the same arithmetic.
import tilelang
import tilelang.language as T

def rms_rows(rows=4096, width=4096, cores=64):
    per_core = rows // cores
    total = rows * width
    @T.prim_func
    def main(X: T.Tensor((total,), "float32"), W: T.Tensor((width,), "float32"),
             Y: T.Tensor((total,), "float32"), R: T.Tensor((rows,), "float32"), eps: T.float32):
        with T.Kernel(cores) as c:
            w_ub = T.alloc_shared((width,), "float32")
            x_ub = T.alloc_shared((width,), "float32")
            y_ub = T.alloc_shared((width,), "float32")
            r_ub = T.alloc_shared((8,), "float32")
            T.copy(W[:width], w_ub[:width])
            for t in T.Pipelined(per_core, num_stages=2):
                row = t * cores + c
                start = row * width
                T.copy(X[start:start + width], x_ub[:width])
                with T.SimtVF(threads=128):
                    xf = T.alloc_fragment((width,), "float32")
                    for i in T.Parallel(width):
                        xf[i] = x_ub[i]
                    acc = T.alloc_reducer((1,), "float32", op="sum", replication="all")
                    T.clear(acc)
                    for i in T.Parallel(width):
                        acc[0] += xf[i] * xf[i]
                    T.finalize_reducer(acc)
                    inv = T.rsqrt(acc[0] / width + eps)
                    r_ub[0] = inv
                    for i in T.Parallel(width):
                        y_ub[i] = xf[i] * inv * w_ub[i]
                T.copy(y_ub[:width], Y[start:start + width])
                T.copy(r_ub[:1], R[row:row + 1])
    return main
