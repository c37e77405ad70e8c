# A tensor made by a helper function of the file (upstream's
# `simulator_safe_randn(shape, *, dtype, device)` returns torch.randn(shape,
# ...).to(device)): its shape comes from the helper's call.
import torch
import tilelang
import tilelang.language as T


def scale_rows(cols=32):
    rows = T.dynamic("rows")

    @T.prim_func
    def main(x: T.Tensor((rows, cols), "float32"), y: T.Tensor((rows, cols), "float32")):
        with T.Kernel(rows // 2) as bx:
            t = T.alloc_shared((2, cols), "float32")
            T.copy(x[bx * 2, 0], t)
            T.copy(t, y[bx * 2, 0])

    return main


def safe_randn(shape, *, dtype, device):
    import torch

    return torch.randn(shape, dtype=dtype, device="cpu").to(device)


if __name__ == "__main__":
    kernel = scale_rows()
    x = safe_randn((10, 32), dtype=torch.float32, device="npu")  # expected-note col 9 {{rows=10 is dimension 0 of this tensor, passed as 'x'}}
    y = kernel(x, torch.empty(10, 32))  # expected-note col 9 {{kernel 'main' takes the T.dynamic size rows=10 from the tensors of its call at line 31; -D rows=VALUE overrides it}}

# CHECK: T.Kernel(5)
