"""A T.dynamic row count that the file's own code fixes (docs/language.md).

`run_rows_affine()` makes 10-row torch tensors and calls the compiled kernel
with them, as `python file.py` would; tilesched takes rows=10 from that call,
so the grid T.ceildiv(rows, block_rows) is 3 blocks and the last block's
guard keeps 2 of its 4 rows.

    Y[r, :] = X[r, :] * 3 + B
"""

import torch
import tilelang
import tilelang.language as T


def rows_affine(width=64, block_rows=4, dtype="float32"):
    rows = T.dynamic("rows")

    @T.prim_func
    def main(
        X: T.Tensor((rows, width), dtype),
        B: T.Tensor((width,), dtype),
        Y: T.Tensor((rows, width), dtype),
    ):
        with T.Kernel(T.ceildiv(rows, block_rows)) as bx:
            b_ub = T.alloc_shared((width,), dtype)
            x_ub = T.alloc_shared((width,), dtype)
            T.copy(B, b_ub)
            for r in T.serial(block_rows):
                row = bx * block_rows + r
                if row < rows:
                    T.copy(X[row, :], x_ub)
                    for j in T.Parallel(width):
                        x_ub[j] = x_ub[j] * 3.0 + b_ub[j]
                    T.copy(x_ub, Y[row, :])

    return main


def run_rows_affine(num_rows=10, width=64):
    kernel = tilelang.compile(rows_affine(width), target="ascend")
    x = torch.randn(num_rows, width, dtype=torch.float32, device="npu")
    b = torch.randn(width, dtype=torch.float32, device="npu")
    y = torch.empty_like(x)
    kernel(x, b, y)
    torch.testing.assert_close(y, x * 3 + b)


if __name__ == "__main__":
    run_rows_affine()
