# The T.dynamic size sits in a nested factory the outer one returns
# (`return build(cols)`), and the tensor passed is torch arithmetic with a
# number (`torch.randn(...) * 4.0`): the size still comes from the call, and
# the T.Persistent domain built from it is constant.
import torch
import tilelang
import tilelang.language as T


def make_scale(cols, cores=4):
    stages = 2

    @tilelang.jit(out_idx=[1])
    def build(width):
        tokens = T.dynamic("tokens")

        @T.prim_func
        def kernel(src: T.Tensor((tokens, width), T.float32), dst: T.Tensor((tokens, width), T.float32)):
            with T.Kernel(cores) as core:
                for row in T.Persistent([tokens], cores, core, group_size=1, num_stages=stages):
                    buf = T.alloc_shared((1, width), T.float32)
                    T.copy(src[row, 0], buf)
                    T.copy(buf, dst[row, 0])

        return kernel

    return build(cols)


def test_scale():
    rows, cols = 24, 64
    x = torch.randn(rows, cols, device="npu") * 4.0  # expected-note col 9 {{tokens=24 is dimension 0 of this tensor, passed as 'x'}}
    scale = make_scale(cols)  # expected-note col 13 {{factory 'make_scale' takes cols=64 from its call at line 33; -D NAME=VALUE overrides them}}
    y = scale(x)  # expected-note col 9 {{kernel 'kernel' takes the T.dynamic size tokens=24 from the tensors of its call at line 34; -D tokens=VALUE overrides it}}

# CHECK: src: T.Tensor((24, 64), "float32")
# CHECK: with T.Persistent(6, num_stages=2) as row_iter:
# CHECK: if core + row_iter * 4 < 24:
