# A T.dynamic size with no -D takes its value from the tensor the file's own
# test passes to the kernel, as pytest would run it: `None` arguments give
# nothing, so `count` comes from `v` (the second parameter), and the grid and
# the loop extent computed from it become constants, as with -D count=40.
import torch
import tilelang
import tilelang.language as T


@tilelang.jit
def scale_tail(with_first, block=16, dtype="float32"):
    count = T.dynamic("count")

    @T.prim_func
    def main(first: T.Tensor((count,), dtype), second: T.Tensor((count,), dtype)):
        with T.Kernel(T.ceildiv(count, block)) as bx:
            buf = T.alloc_shared((block,), dtype)
            for step in T.serial(count // 8):
                if with_first:
                    T.copy(first[bx * block], buf)
                T.copy(second[bx * block], buf)

    return main


def test_scale_tail():
    length = 40
    v = torch.randn((length,), dtype=torch.float32).npu()  # expected-note col 9 {{count=40 is dimension 0 of this tensor, passed as 'v'}}
    scale_tail(False)(None, v)  # expected-note col 5 {{factory 'scale_tail' takes with_first=False from its call at line 29; -D NAME=VALUE overrides them}}
    # expected-note@-1 col 5 {{kernel 'main' takes the T.dynamic size count=40 from the tensors of its call at line 29; -D count=VALUE overrides it}}
    scale_tail(False)(None, torch.randn(8))

# 40 elements in blocks of 16: 3 blocks, 5 steps.
# CHECK: first: T.Tensor((40,), "float32")
# CHECK: T.Kernel(3)
# CHECK: for step in T.serial(5):
