# The kernel object followed through names and tilelang.compile in a pytest
# test with parametrize: two T.dynamic sizes from a positional and a keyword
# argument, tensors made after the compile, and the sizes read in factory
# code (`steps`) as -D values would be.
import pytest
import torch
import tilelang
import tilelang.language as T


def row_dot(block_m, dtype="float32"):
    m = T.dynamic("m")
    k = T.dynamic("k")
    steps = k // 16

    @T.prim_func
    def main(X: T.Tensor((m, k), dtype), W: T.Tensor((k,), dtype), Y: T.Tensor((m,), dtype)):
        with T.Kernel(m // block_m) as bx:
            x = T.alloc_shared((block_m, 16), dtype)
            for s in T.serial(steps):
                T.copy(X[bx * block_m, s * 16], x)

    return main


@pytest.mark.parametrize("rows, cols", [(64, 48), (128, 32)])  # expected-note col 2 {{with parameter set 1 of this @pytest.mark.parametrize (rows=64, cols=48)}}
def test_row_dot(rows, cols):
    program = row_dot(8)  # expected-note col 15 {{factory 'row_dot' takes block_m=8 from its call at line 28; -D NAME=VALUE overrides them}}
    jit_kernel = tilelang.compile(program, out_idx=[-1])
    kernel = jit_kernel
    x, w = torch.randn(rows, cols), torch.randn(cols)  # expected-note col 12 {{m=64 is dimension 0 of this tensor, passed as 'x'}}
    # expected-note@-1 col 12 {{k=48 is dimension 1 of this tensor, passed as 'x'}}
    for _ in range(2):
        y = kernel(x.npu(), W=w)  # expected-note col 13 {{kernel 'main' takes the T.dynamic sizes m=64, k=48 from the tensors of its call at line 34; -D NAME=VALUE overrides them}}
        # expected-note@26 col 2 {{with parameter set 1 of this @pytest.mark.parametrize (rows=64, cols=48)}}

# 64 rows in blocks of 8, 48 columns in 3 steps of 16.
# CHECK: X: T.Tensor((64, 48), "float32"), W: T.Tensor((48,), "float32"), Y: T.Tensor((64,), "float32")
# CHECK: T.Kernel(8)
# CHECK: for s in T.serial(3):
