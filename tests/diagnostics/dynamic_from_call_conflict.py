# Two tensors of one call of the kernel give its T.dynamic size different
# values: an error at the second, a note at the first, and no kernel.
import torch
import tilelang
import tilelang.language as T


def pair_copy(cols=32, dtype="float16"):
    rows = T.dynamic("rows")

    @T.prim_func
    def main(A: T.Tensor((rows, cols), dtype), B: T.Tensor((rows, cols), dtype)):
        with T.Kernel(T.ceildiv(rows, 4)) as bx:
            a = T.alloc_shared((4, cols), dtype)
            T.copy(A[bx * 4, 0], a)
            T.copy(a, B[bx * 4, 0])

    return main


def run(rows_a=8, rows_b=12):
    kernel = tilelang.compile(pair_copy(), target="ascend")
    src = torch.randn(rows_a, 32, dtype=torch.float16)
    dst = torch.zeros((rows_b, 32), dtype=torch.float16)
    kernel(src, dst)  # expected-error col 17 {{'src' and 'dst' give the T.dynamic size 'rows' different values (8 and 12) in this call of kernel 'main'; make their shapes agree or pass -D rows=VALUE}}
    # expected-note@-1 col 12 {{rows=8 from dimension 0 of 'src' here}}


if __name__ == "__main__":
    run()
