# Two factories in one file, the way upstream test files hold several kernels;
# the test code below them is kept byte for byte.
import tilelang
import tilelang.language as T
import torch


def scale(N=4096, tile=512, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
        with T.Kernel(2, is_npu=True) as bx:
            a_ub = T.alloc_ub((tile,), dtype)  # the input tile
            b_ub = T.alloc_ub(
                (tile,), dtype  # "(" in a comment and ")" in a string: ")"
            )
            # pin: 'a_ub' has the 2 versions num_stages=2 of loop 's' allows; a larger num_stages would lower the loop's II bound from 116 to 41
            # pin: 'b_ub' has the 2 versions num_stages=2 of loop 's' allows; a larger num_stages would lower the loop's II bound from 116 to 41
            T.annotate_buffer_versions({a_ub: 2, b_ub: 2})
            for s in T.Pipelined(N // 2 // tile, num_stages=2):
                off = bx * (N // 2) + s * tile
                T.copy(A[off : off + tile], a_ub)
                for i in T.Parallel(tile):
                    b_ub[i] = a_ub[i] * 3.0
                T.copy(b_ub, B[off : off + tile])

    return main


def shift(N=4096, tile=1024, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
        with T.Kernel(1, is_npu=True) as bx:
            x = T.alloc_ub((tile,), dtype)
            y = T.alloc_ub(
                (tile,),
                dtype,
            )
            # pin: 'y' has the 3 versions num_stages=3 of loop 's' allows; a larger num_stages would lower the loop's II bound from 95 to 82
            T.annotate_buffer_versions({x: (3, "counter"), y: 3})
            for s in T.Pipelined(N // tile, num_stages=3):
                T.copy(A[s * tile : (s + 1) * tile], x)
                for i in T.Parallel(tile):
                    y[i] = x[i] + 1.0
                T.copy(y, B[s * tile : (s + 1) * tile])

    return main


def test_scale():
    a = torch.randn(4096)
    kernel = tilelang.compile(scale(), out_idx=[1])
    torch.testing.assert_close(kernel(a), a * 3)


if __name__ == "__main__":
    test_scale()
