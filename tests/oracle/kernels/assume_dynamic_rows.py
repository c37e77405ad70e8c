"""T.assume before and inside `with T.Kernel` (issue 7 §3).

Upstream-style row loop over a T.dynamic row count split across the cores:
the author promises that the row count is a multiple of the core count, and
that the scale factor parameter is positive. tilesched records the facts and
the simulator checks them for every block; a run whose inputs break one fails
with an error at the T.assume line.

    Y[r, :] = X[r, :] * scale + 1
"""

import tilelang
import tilelang.language as T

NUM_CORES = 4


def scale_rows(width=256, dtype="float32"):
    num_rows = T.dynamic("m")

    @T.prim_func
    def main(
        X: T.Tensor((num_rows, width), dtype),
        Y: T.Tensor((num_rows, width), dtype),
        scale: T.int32,
    ):
        T.assume(num_rows % NUM_CORES == 0)
        with T.Kernel(NUM_CORES) as core_id:
            T.assume(scale > 0)
            x_ub = T.alloc_shared((width,), dtype)
            for r in T.serial(num_rows // NUM_CORES):
                row = r * NUM_CORES + core_id
                T.copy(X[row, :], x_ub)
                with T.SimdVF():
                    for k in T.Parallel(width):
                        x_ub[k] = x_ub[k] * T.cast(scale, dtype) + 1.0
                T.copy(x_ub, Y[row, :])

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(scale_rows(), out_idx=[1])
    print(kernel.get_kernel_source())
