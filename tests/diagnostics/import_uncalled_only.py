# The file's only kernel factory is imported and called with a tensor's size:
# the error names the parameter, located in the module that defines it.
import torch

import tilelang

from _import_uncalled_only_lib import tile_fill


def test_fill():
    x = torch.empty(4096)
    kernel = tilelang.compile(tile_fill(x.shape[0]))
