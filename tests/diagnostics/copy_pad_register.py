# T.ascend_set_copy_pad_value + T.copy(..., data_select=True): the pad register
# must be set before the copy, in the same body or around it, with the
# destination's dtype.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((4, 30), "float32"), B: T.Tensor((4, 32), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((4, 32), "float32")
        h = T.alloc_shared((4, 32), "float16")
        T.copy(A, a[:, :30], data_select=True)  # expected-error col 30 {{data_select=True pads with the value of T.ascend_set_copy_pad_value(v, dtype=...), which is not called before this copy; call it first, or give pad_value=v}}
        if bx == 0:
            T.ascend_set_copy_pad_value(-1.0, dtype="float32")
        T.copy(A, a[:, :30], data_select=True)  # expected-error col 30 {{data_select=True pads with the value of T.ascend_set_copy_pad_value, but the one at line 14 is inside a loop, branch or VF body that ends before this copy; set it in the same body as the copy, or around it}}
        T.ascend_set_copy_pad_value(-1.0, dtype="float32")
        T.copy(A, h[:, :30], data_select=True)  # expected-error col 30 {{the pad register holds a float32 value (T.ascend_set_copy_pad_value at line 16) but 'h' is float16}}
        T.copy(A, a[:, :30], pad_value=0.0, data_select=True)  # expected-error col 45 {{pad_value= and data_select=True exclude each other: pad_value= sets the pad value for this copy, data_select=True reuses the one set by T.ascend_set_copy_pad_value}}
        T.copy(a, B, data_select=True)  # expected-error col 22 {{data_select= is only supported for copies from global memory (global→shared, global→shared.l1), not from shared}}
        T.copy(A, a[:, :30], data_select=True)
        T.copy(A, a[:, :30], data_select=False)
        T.ascend_set_copy_pad_value(-1.0)  # expected-error col 9 {{T.ascend_set_copy_pad_value takes a value and a dtype: T.ascend_set_copy_pad_value(-1.0, dtype="float32")}}
        T.copy(a, B)
