"""The pytest file of test_import_axpy.py, importing the way upstream example
pairs do when they may run as a package or as plain files: the package-relative
import fails here (no package), so the `except ImportError:` fallback supplies
the factory; the handler's ALPHA (not the else clause's) and the finally
clause's BLOCK_M are the ones bound. Same sizes, same expected values.
"""

import pytest
import torch
import tilelang

try:
    from .example_import_axpy import axpy_rows, ref_program
except ImportError:
    from example_import_axpy import axpy_rows, ref_program

    ALPHA = 0.5
else:
    ALPHA = 0.75  # not run: the try body's import failed
finally:
    BLOCK_M = 16


@pytest.mark.parametrize("M, N", [(64, 128), (32, 256)])
def test_axpy_rows(M, N):
    block_M = BLOCK_M
    kernel = tilelang.compile(axpy_rows(M, N, block_M, alpha=ALPHA), target="ascend", out_idx=-1)
    x, y = torch.randn(M, N), torch.randn(M, N)
    torch.testing.assert_close(kernel(x.npu(), y.npu()).cpu(), ref_program(x, y, 0.5))
