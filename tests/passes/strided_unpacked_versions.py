# A T.StridedTensor parameter prints back with its strides; versions given
# through `**` in T.annotate_buffer_versions (a later entry replaces an
# earlier one: c keeps 1, printed as no entry) are the ones the schedule
# keeps; a T.assume about a loaded value stays between the load and its use.
# PASSES: analyze, schedule
import tilelang.language as T


def gather(width=128):
    stride = T.dynamic("stride")
    base = {"a": 3}

    @T.prim_func
    def main(X: T.StridedTensor((8, width), (stride, 1), "float32"), I: T.Tensor((8,), "int32"),
             C: T.Tensor((8, width), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((width,), "float32")
            c = T.alloc_shared((width,), "float32")
            T.annotate_buffer_versions({**{a: base["a"]}, c: 2, **{c: 1}})
            for t in T.Pipelined(8, num_stages=2):
                row = T.int32(I[t])
                T.assume(0 <= row < 8)
                T.copy(X[row, :], a)
                for i in T.Parallel(width):
                    c[i] = a[i] + 1.0
                T.copy(c, C[t, :])

    return main

# CHECK: def main(X: T.StridedTensor((8, 128), (stride, 1), "float32"), I: T.Tensor((8,), "int32"), C: T.Tensor((8, 128), "float32")):
# CHECK: T.annotate_buffer_versions({a: 3})
# CHECK: row = I[t]
# CHECK-NEXT: T.assume(0 <= row and row < 8)
# CHECK-NEXT: T.copy(X[row, 0:128], a)
