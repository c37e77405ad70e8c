# rms_norm.py -- RMSNorm over the rows of an M x N matrix:
#     Y[r, :] = X[r, :] * rsqrt(mean(X[r, :]^2) + eps) * W[:]
# X, W and Y use `dtype` (float16 by default); all arithmetic is float32.
#
# Each block owns M // num_blocks consecutive rows and walks them in row tiles
# of block_rows rows inside a T.Pipelined(num_stages=2) loop. One iteration:
# GM->UB load (MTE2), cast + square (V), T.reduce_sum over the row (V),
# T.rsqrt of mean + eps (V), scale + cast back (V), UB->GM store (MTE3).
# The weight row is loaded and widened once per block, before the loop.
#
# Scheduling feature: a V-heavy body with several per-iteration temporaries.
# Every UB buffer used in the loop (x_ub, xf, sq, ssum, rstd, y_ub) is written
# first in each iteration and is therefore owned by the loop; w_ub / wf are
# only read there, so they are not owned and keep 1 version. Expected: x_ub
# and y_ub get 2 versions (they bridge MTE2->V and V->MTE3); the V-only
# temporaries need just 1, because V runs in order. eps is a compile-time
# constant (-D eps=1e-5 changes it).
#
#   tilesched run examples/rms_norm.py
#   tilesched run examples/rms_norm.py -D dtype=float32

import tilelang
import tilelang.language as T
import torch


def rms_norm(M=64, N=256, num_blocks=4, block_rows=4, eps=1e-6, dtype="float16"):
    accum_dtype = "float32"
    assert M % num_blocks == 0, "M must be a multiple of num_blocks"
    rows_per_block = M // num_blocks
    assert rows_per_block % block_rows == 0, "rows per block must be a multiple of block_rows"
    num_row_tiles = rows_per_block // block_rows
    inv_n = 1.0 / N

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        W: T.Tensor((N,), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_blocks, is_npu=True) as bx:
            w_ub = T.alloc_ub((N,), dtype)
            wf = T.alloc_ub((N,), accum_dtype)
            x_ub = T.alloc_ub((block_rows, N), dtype)
            xf = T.alloc_ub((block_rows, N), accum_dtype)
            sq = T.alloc_ub((block_rows, N), accum_dtype)
            ssum = T.alloc_ub((block_rows,), accum_dtype)
            rstd = T.alloc_ub((block_rows,), accum_dtype)
            y_ub = T.alloc_ub((block_rows, N), dtype)

            # Weight: loaded once per block, widened to float32.
            T.copy(W, w_ub)
            for j in T.Parallel(N):
                wf[j] = T.cast(w_ub[j], accum_dtype)

            for rt in T.Pipelined(num_row_tiles, num_stages=2):
                T.copy(
                    X[bx * rows_per_block + rt * block_rows : bx * rows_per_block + (rt + 1) * block_rows, :],
                    x_ub,
                )
                for i, j in T.Parallel(block_rows, N):
                    xf[i, j] = T.cast(x_ub[i, j], accum_dtype)
                for i, j in T.Parallel(block_rows, N):
                    sq[i, j] = xf[i, j] * xf[i, j]
                T.reduce_sum(sq, ssum, dim=-1)
                for i in T.Parallel(block_rows):
                    rstd[i] = T.rsqrt(ssum[i] * inv_n + eps)
                for i, j in T.Parallel(block_rows, N):
                    y_ub[i, j] = T.cast(xf[i, j] * rstd[i] * wf[j], dtype)
                T.copy(
                    y_ub,
                    Y[bx * rows_per_block + rt * block_rows : bx * rows_per_block + (rt + 1) * block_rows, :],
                )

    return main


def ref_program(x, w, eps=1e-6):
    xf = x.float()
    rstd = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (xf * rstd * w.float()).to(x.dtype)


if __name__ == "__main__":
    torch.manual_seed(0)
    M, N = 64, 256
    for dtype in ("float16", "float32"):
        program = rms_norm(M, N, dtype=dtype)
        kernel = tilelang.compile(program, out_idx=[2], target="ascend")

        torch_dtype = getattr(torch, dtype)
        x = torch.randn(M, N, dtype=torch_dtype).npu()
        w = torch.randn(N, dtype=torch_dtype).npu()
        y = kernel(x, w)
        torch.npu.synchronize()

        tol = 1e-2 if dtype == "float16" else 1e-5
        torch.testing.assert_close(y.cpu(), ref_program(x, w).cpu(), rtol=tol, atol=tol)
        print(f"rms_norm[{dtype}]: PASS")
