"""float8 storage, copies and casts (issue 7 §3), upstream quantization style.

Each core takes a band of rows: a float32 -> float8_e4m3fn T.copy (round to
nearest even, saturating at +-448), a float32 product stored to a
float8_e5m2 buffer element by element (saturating at +-57344), the e4m3fn
values read back with T.cast, and an e5m2 input tensor widened to float32.

    Q4 = e4m3fn(X)      Q5 = e5m2(X * 0.5)      Back = float32(Q4) * 2
    E5Out = float32(E5In)
"""

import tilelang
import tilelang.language as T


def fp8_cast(M=8, N=256, num_cores=2):
    rows = M // num_cores

    @T.prim_func
    def main(
        X: T.Tensor((M, N), "float32"),
        E5In: T.Tensor((M, N), T.float8_e5m2),
        Q4: T.Tensor((M, N), T.float8_e4m3fn),
        Q5: T.Tensor((M, N), T.float8_e5m2),
        Back: T.Tensor((M, N), "float32"),
        E5Out: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(num_cores) as core_id:
            x_ub = T.alloc_shared((rows, N), "float32")
            q4_ub = T.alloc_shared((rows, N), T.float8_e4m3fn)
            q5_ub = T.alloc_shared((rows, N), T.float8_e5m2)
            back_ub = T.alloc_shared((rows, N), "float32")
            e5_ub = T.alloc_shared((rows, N), T.float8_e5m2)
            f_ub = T.alloc_shared((rows, N), "float32")
            first = core_id * rows
            last = first + rows
            T.copy(X[first:last, :], x_ub)
            # The FP8 conversion saturates values at the finite limits.
            T.copy(x_ub, q4_ub)
            with T.SimdVF():
                for i, j in T.Parallel(rows, N):
                    q5_ub[i, j] = x_ub[i, j] * 0.5
                    back_ub[i, j] = T.cast(q4_ub[i, j], "float32") * 2.0
            T.copy(q4_ub, Q4[first:last, :])
            T.copy(q5_ub, Q5[first:last, :])
            T.copy(back_ub, Back[first:last, :])
            T.copy(E5In[first:last, :], e5_ub)
            T.copy(e5_ub, f_ub)
            T.copy(f_ub, E5Out[first:last, :])

    return main


if __name__ == "__main__":
    kernel = tilelang.compile(fp8_cast(), out_idx=[2, 3, 4, 5])
    print(kernel.get_kernel_source())
