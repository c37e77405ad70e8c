"""Views of global tensors, as upstream's example_per_token_cast_to_fp8.py
groups a row-major tensor: `T.Tensor(shape, dtype, X.data)` before the kernel,
`T.reshape` before it and `T.view` inside it. Each block scales 8 groups of 16
consecutive elements by their largest magnitude.

    g = 16 consecutive elements of X (row-major), s = max |g|
    S[flat group index] = s;  Y[same elements] = g / s
"""

import tilelang
import tilelang.language as T


def global_views(M=8, N=64, blocks=4):
    groups = M * N // 16
    per_block = groups // blocks

    @T.prim_func
    def main(
        X: T.Tensor((M, N), "float32"),
        S: T.Tensor((M, N // 16), "float32"),
        Y: T.Tensor((M, N), "float32"),
    ):
        x_groups = T.Tensor((groups, 16), "float32", X.data)
        s_groups = T.reshape(S, (groups,))
        with T.Kernel(blocks) as bx:
            y_groups = T.view(Y, (groups, 16))
            x_ub = T.alloc_shared((per_block, 16), "float32")
            a_ub = T.alloc_shared((per_block, 16), "float32")
            s_ub = T.alloc_shared((per_block,), "float32")
            y_ub = T.alloc_shared((per_block, 16), "float32")
            T.copy(x_groups[bx * per_block : (bx + 1) * per_block, :], x_ub)
            for i, j in T.Parallel(per_block, 16):
                a_ub[i, j] = T.abs(x_ub[i, j])
            T.reduce_max(a_ub, s_ub, dim=1)
            for i, j in T.Parallel(per_block, 16):
                y_ub[i, j] = x_ub[i, j] / s_ub[i]
            T.copy(s_ub, s_groups[bx * per_block : (bx + 1) * per_block])
            T.copy(y_ub, y_groups[bx * per_block : (bx + 1) * per_block, :])

    return main


if __name__ == "__main__":
    global_views()
