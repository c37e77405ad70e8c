# -D wins over the tensors of the file's own call: with -D rows=12 the two
# tensors that disagree on 'rows' are not read for it (no error), while
# 'cols', which no -D sets, still comes from them.
# ARGS: -D rows=12
import torch
import tilelang
import tilelang.language as T


def pair_copy(dtype="float16"):
    rows = T.dynamic("rows")
    cols = T.dynamic("cols")

    @T.prim_func
    def main(A: T.Tensor((rows, cols), dtype), B: T.Tensor((rows, cols), dtype)):
        with T.Kernel(T.ceildiv(rows, 4)) as bx:
            a = T.alloc_shared((4, 32), dtype)
            T.copy(A[bx * 4, 0], a)
            T.copy(a, B[bx * 4, 0])

    return main


def run(rows_a=8, rows_b=20):
    kernel = tilelang.compile(pair_copy(), target="ascend")
    src = torch.randn(rows_a, 32, dtype=torch.float16)  # expected-note col 11 {{cols=32 is dimension 1 of this tensor, passed as 'src'}}
    dst = torch.zeros((rows_b, 32), dtype=torch.float16)
    kernel(src, dst)  # expected-note col 5 {{kernel 'main' takes the T.dynamic size cols=32 from the tensors of its call at line 28; -D cols=VALUE overrides it}}
    # expected-note@-1 col 5 {{kernel 'main' runs on inputs of the kinds the file's call at line 28 passes: 'B' from torch.zeros; --input NAME=FILE.npy overrides them}}
    # expected-note@-3 col 11 {{'B' is made here (torch.zeros)}}


if __name__ == "__main__":
    run()

# CHECK: A: T.Tensor((12, 32), "float16")
# CHECK: T.Kernel(3)
