# unlimit_memory.py -- row-wise SiLU, Y = X * sigmoid(X), on rows long enough
# that each UB row tile is 64 KiB (N = 16384 float32).
#
# A T.Pipelined(num_stages=2) loop walks the rows of each block: GM->UB load
# of one whole row into x_ub (MTE2), SiLU into y_ub (V), UB->GM store (MTE3).
#
# Scheduling feature: T.annotate_unlimit_memory("shared"). Both x_ub and
# y_ub want 2 versions, which is 4 x 64 KiB = 256 KiB. That is more than
# the 248 KiB (253952 B) of UB on ascend950.
#   * unlimit=False (-D unlimit=False): UB is capacity-checked. One version
#     each (128 KiB) fits, so the solver must pick which buffer to
#     double-buffer (192 KiB). The result fits the hardware.
#   * unlimit=True (default): UB gets an unbounded capacity in the scheduler,
#     and the solver picks 2 versions for both. The compile report says the
#     choice exceeds the UB of the target. The annotation enlarges no
#     hardware: `tilesched run` still models 248 KiB and reports the
#     over-capacity allocation (capacity_errors > 0, exit status 3).
#     -D N=8192 makes the fully double-buffered schedule fit again (128 KiB).
# Note: with the defaults the tensors hold 2 x 64K elements. This is larger
# than the other examples, because 64 KiB rows are what make the UB pressure
# real.
#
#   tilesched compile examples/unlimit_memory.py --emit report-json
#   tilesched run examples/unlimit_memory.py -D unlimit=False

import tilelang
import tilelang.language as T
import torch


def silu_long_rows(M=4, N=16384, num_blocks=1, unlimit=True, dtype="float32"):
    assert M % num_blocks == 0, "M must be a multiple of num_blocks"
    rows_per_block = M // num_blocks

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            x_ub = T.alloc_ub((N,), dtype)
            y_ub = T.alloc_ub((N,), dtype)
            if unlimit:
                T.annotate_unlimit_memory("shared")

            for r in T.Pipelined(rows_per_block, num_stages=2):
                T.copy(X[bx * rows_per_block + r, :], x_ub)
                for j in T.Parallel(N):
                    y_ub[j] = x_ub[j] * T.sigmoid(x_ub[j])
                T.copy(y_ub, Y[bx * rows_per_block + r, :])

    return main


def ref_program(x):
    return torch.nn.functional.silu(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    M, N = 4, 16384
    program = silu_long_rows(M, N)
    kernel = tilelang.compile(program, out_idx=[1], target="ascend")

    x = torch.randn(M, N, dtype=torch.float32).npu()
    y = kernel(x)
    torch.npu.synchronize()

    torch.testing.assert_close(y.cpu(), ref_program(x).cpu(), rtol=1e-5, atol=1e-5)
    print("unlimit_memory: PASS")
