# A helper that does more than return a torch tensor (here it doubles a size
# first) gives no T.dynamic value: tilesched does not run its statements, so
# the size stays unknown rather than wrong.
import torch
import tilelang
import tilelang.language as T


def scale_rows(cols=32):
    rows = T.dynamic("rows")

    @T.prim_func
    def main(x: T.Tensor((rows, cols), "float32")):
        with T.Kernel(rows // 2) as bx:  # expected-error col 23 {{grid size must be a compile-time integer, got a run-time value of the T.dynamic size 'rows'; pass -D rows=VALUE to make it a constant}}
            t = T.alloc_shared((2, cols), "float32")
            T.copy(x[bx * 2, 0], t)

    return main


def make(rows, cols):
    rows = rows * 2
    return torch.randn(rows, cols)


if __name__ == "__main__":
    kernel = scale_rows()
    kernel(make(5, 32))
