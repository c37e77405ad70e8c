# A pytest file in the style of the upstream Ascend tests: the kernel factory
# comes from the sibling module _import_scale_lib.py, and its parameters
# without a default take the first @pytest.mark.parametrize set of the test
# that calls it (the decorator nearest the test varies slowest, as in pytest).
import pytest
import torch
import tilelang

from _import_scale_lib import ref_program, scale_rows


@pytest.mark.parametrize("M, N", [(32, 96), (64, 128)])  # expected-note col 2 {{with parameter set 1 of this @pytest.mark.parametrize (M=32, N=96)}}
@pytest.mark.parametrize("dtype", ["float16", pytest.param("float32", marks=pytest.mark.slow)])  # expected-note col 2 {{with parameter set 1 of this @pytest.mark.parametrize (dtype='float16')}}
def test_scale_rows(M, N, dtype):
    block_M = 16
    kernel = tilelang.compile(scale_rows(M, N, block_M, dtype=dtype), out_idx=-1)  # expected-note col 31 {{factory 'scale_rows' takes M=32, N=96, block_M=16, dtype='float16' from its call at line 16; -D NAME=VALUE overrides them}}
    x = torch.randn(M, N)
    torch.testing.assert_close(kernel(x), ref_program(x))


def test_not_a_factory():
    assert False, "a test function never runs"

# The kernel is built from the module's factory with the first set's values:
# 32 x 96 float16 rows in 2 blocks of 16; `factor` keeps its default.
# CHECK: # kernel main (factory scale_rows), _import_scale_lib.py:11
# CHECK: A: T.Tensor((32, 96), "float16")
# CHECK: T.Kernel(2)
# CHECK: T.alloc_shared((16, 96), "float16")
# CHECK: a[i, j] = a[i, j] * T.float16(2.0)
