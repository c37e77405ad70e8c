# T.assume states facts about scalar parameters, T.dynamic sizes and the block
# index, or about values the kernel computes (checked where it stands when the
# kernel runs); a constant false one, or one that is not a condition, is an
# error at the condition.
import tilelang.language as T


def bad_assume(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), n: T.int32):
        T.assume(N % 3 == 0)  # expected-error col 18 {{this T.assume condition is false}}
        T.assume(n, 2)  # expected-error col 9 {{T.assume takes one condition (2 given)}}
        with T.Kernel(2) as bx:
            T.assume(n > 0)
            T.assume(bx < 2)
            a = T.alloc_shared((N,), "float32")
            T.copy(A, a)
            s = n * 2
            T.assume(s < 100)
            T.assume(a[0] > 0.0)
            for i in T.serial(4):
                T.assume(i < 4)
            T.assume(s * 0.5)  # expected-error col 22 {{T.assume needs a condition (a comparison), got a float value}}
            T.assume(n * 0.5)  # expected-error col 22 {{T.assume needs a condition (a comparison), got a float value}}
            T.assume(n > 0, msg="x")  # expected-error col 29 {{unknown keyword argument 'msg' to T.assume; it takes no keyword arguments}}

    return main
