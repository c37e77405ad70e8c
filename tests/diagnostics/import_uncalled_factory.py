# An imported factory that the file's code never calls with constant arguments
# (only with a tensor's size) is not compiled when the file has kernels of its
# own: no error for its parameter without a value.
import torch

import tilelang
import tilelang.language as T

from _import_uncalled_lib import tile_fill


def own_copy(N=1024, tile=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // tile) as bx:
            a = T.alloc_shared((tile,), "float32")
            T.copy(A[bx * tile], a)
            T.copy(a, B[bx * tile])

    return main


def test_fill():
    x = torch.empty(4096)
    kernel = tilelang.compile(tile_fill(x.shape[0]))

# CHECK: # kernel main (factory own_copy)
# CHECK: def main(A: T.Tensor((1024,), "float32")
