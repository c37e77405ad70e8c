"""pytest file for example_import_axpy.py, in the style of the upstream Ascend
tests: the factory is imported from the sibling module and called from a test
function whose sizes come from @pytest.mark.parametrize. tilesched compiles it
with the first parameter set (M=64, N=128, target='ascend') and the constants
of the test body (block_M=16, alpha=0.5).
"""

import pytest
import torch
import tilelang

from example_import_axpy import axpy_rows, ref_program


@pytest.mark.parametrize("M, N", [(64, 128), (32, 256)])
@pytest.mark.parametrize("target", ["ascend", pytest.param("pto", marks=pytest.mark.pto)])
def test_axpy_rows(M, N, target):
    block_M = 16
    kernel = tilelang.compile(axpy_rows(M, N, block_M, alpha=0.5), target=target, out_idx=-1)
    x, y = torch.randn(M, N), torch.randn(M, N)
    torch.testing.assert_close(kernel(x.npu(), y.npu()).cpu(), ref_program(x, y, 0.5))
