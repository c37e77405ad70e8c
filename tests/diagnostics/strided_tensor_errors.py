# T.StridedTensor(shape, strides, dtype): one stride per dimension, integers,
# positive, not overlapping where known; views of a strided tensor are not
# supported yet; every misuse is an error at the parameter's annotation.
import tilelang.language as T

m = T.dynamic("m")


@T.prim_func
def bad_params(
    A: T.StridedTensor((4, 8), (8,), "float32"),  # expected-error col 8 {{T.StridedTensor has 2 dimensions but 1 stride; give one stride per dimension}}
    B: T.StridedTensor((4, 8), (4, 1), "float32"),  # expected-error col 8 {{strides (4, 1) make two elements of shape (4, 8) share an address; overlapping strides are not supported yet}}
    C: T.StridedTensor((4, 8), (0, 1), "float32"),  # expected-error col 8 {{tensor strides must be positive, got 0}}
    D: T.StridedTensor((4, 8), (8.0, 1), "float32"),  # expected-error col 8 {{tensor strides must be integers}}
    E: T.StridedTensor((4, 8), "float32"),  # expected-error col 8 {{T.StridedTensor needs a shape and strides: T.StridedTensor(shape, strides, dtype)}}
    F: T.StridedTensor((4, 8), (8, 1), "float32", scope="shared"),  # expected-error col 8 {{T.StridedTensor is a global tensor; scope= may only be "global"}}
    G: T.StridedTensor((4, 8), (8, 1), dtype="float32", shape=(4, 8)),  # expected-error col 63 {{T.StridedTensor got 'shape' twice}}
    H: T.StridedTensor((4, 8), (8, 1), "float32", layout=1),  # expected-error col 51 {{unknown keyword argument 'layout' to T.StridedTensor; accepted: shape, strides, dtype, scope}}
):
    with T.Kernel(1) as bx:
        pass


@T.prim_func
def strided_view(X: T.StridedTensor((m, 16), (32, 1), "float32"), Y: T.StridedTensor((4, 16), (32, 1), "float32")):
    with T.Kernel(1) as bx:
        v = T.reshape(Y, (64,))  # expected-error col 13 {{T.reshape of 'Y', a T.StridedTensor, is not supported yet (a view reads the tensor's bytes in dense order)}}
        w = T.Tensor((64,), "float32", Y.data)  # expected-error col 13 {{T.view of 'Y', a T.StridedTensor, is not supported yet (a view reads the tensor's bytes in dense order)}}
