# A factory parameter with neither a default nor -D takes its value from the
# file's own call of the factory, as `python file.py` would run it: main()
# reads an argparse default, a module constant and a local constant.
import argparse

import tilelang
import tilelang.language as T

ROWS = 256


def row_copy(M, N, block_M=32, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M) as bx:
            a = T.alloc_shared((block_M, N), dtype)
            T.copy(A[bx * block_M, 0], a)
            T.copy(a, B[bx * block_M, 0])

    return main


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cols", type=int, default=48)
    parser.add_argument("--block-rows", type=int, default=64)
    args = parser.parse_args()
    func = row_copy(ROWS, args.cols, block_M=args.block_rows)  # expected-note col 12 {{factory 'row_copy' takes M=256, N=48, block_M=64 from its call at line 28; -D NAME=VALUE overrides them}}
    kernel = tilelang.compile(func)


if __name__ == "__main__":
    main()

# 256 rows in blocks of 64 rows: 4 blocks of a 64 x 48 tile.
# CHECK: A: T.Tensor((256, 48), "float32")
# CHECK: T.Kernel(4)
# CHECK: T.alloc_shared((64, 48), "float32")
