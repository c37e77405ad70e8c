# The first call whose arguments are all compile-time constants supplies the
# values: a call with a length taken from a torch tensor is skipped; a loop over a constant
# list reaches the call with its first element. -D still wins.
# ARGS: -D dtype=float16
import tilelang
import tilelang.language as T
import torch


def tile_sum(length, width, dtype):
    block = width * 2

    @T.prim_func
    def main(X: T.Tensor((length,), dtype), Y: T.Tensor((length,), dtype)):
        with T.Kernel(length // block) as bx:
            x = T.alloc_shared((block,), dtype)
            T.copy(X[bx * block], x)
            T.copy(x, Y[bx * block])

    return main


if __name__ == "__main__":
    x = torch.randn(1024)
    skipped = tile_sum(x.shape[0], 16, "float32")
    for width in [8, 32]:
        n = 512
        prog = tile_sum(n, width, "float32")  # expected-note col 16 {{factory 'tile_sum' takes length=512, width=8 from its call at line 28; -D NAME=VALUE overrides them}}
        kernel = tilelang.compile(prog)

# width 8 → block 16; 512 / 16 = 32 blocks; dtype from -D.
# CHECK: X: T.Tensor((512,), "float16")
# CHECK: T.Kernel(32)
# CHECK: T.alloc_shared((16,), "float16")
