"""`with T.Kernel(n) as bx, T.SimtVF(threads=K):` — the second item of the
`with` opens a VF region around the whole kernel body — and a second launch,
`with T.Kernel(1), T.SimdVF():`, that reads what the first one wrote.
"""

import tilelang
import tilelang.language as T


def kernel_simt_vf(N=1024, blocks=4, threads=64, dtype="float32"):
    per_block = N // blocks

    @T.prim_func
    def main(X: T.Tensor((N,), dtype), Y: T.Tensor((N,), dtype), Z: T.Tensor((N,), dtype)):
        # Launch 0: Y = 3 * X, straight from global memory, one region per block.
        with T.Kernel(blocks, is_npu=True) as bx, T.SimtVF(threads=threads):
            for i in T.Parallel(per_block):
                Y[bx * per_block + i] = X[bx * per_block + i] * 3.0
        # Launch 1: Z = Y + X, one block, one SIMD region.
        with T.Kernel(1), T.SimdVF():
            for i in T.Parallel(N):
                Z[i] = Y[i] + X[i]

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(kernel_simt_vf(), out_idx=[1, 2])
