# Upstream spellings: their misuses name the construct and the supported form.
import tilelang.language as T


@T.prim_func
def bad_subscript(A: T.Tensor[(64,)]):  # expected-error col 31 {{T.Tensor[...] takes a shape and a dtype: T.Tensor[(M, N), "float16"]}}
    with T.Kernel(1) as bx:
        pass


@T.prim_func
def main(A: T.Buffer[(64,), "float32"], B: T.Tensor[(64,), "float16"]):
    with T.Kernel(1):
        a = T.alloc_ub((64,), "float32")
        T.copy(A, a)
        b = a.astype("float16")  # expected-error col 13 {{astype converts a scalar value; to convert buffer 'a' use T.copy into a buffer of the new dtype}}
        for i in T.Serial(64, step=2):  # expected-error col 31 {{unknown keyword argument 'step' to T.Serial; accepted: annotations}}
            pass
        B[0] = A[0].astype("float16", "x")  # expected-error col 16 {{astype takes one argument, the dtype: x.astype("float32")}}
        B[1] = T.Cast(A[0], "float16")  # expected-error col 23 {{expected a dtype such as "float16" or T.float16, got an element of 'A'}}
        B[2] = T.Serial(4)  # expected-error col 16 {{T.Serial(...) can only be the iterable of a 'for' loop}}
        B[3] = T.serial[4]  # expected-error col 16 {{T.serial cannot be subscripted; of the T functions only T.Tensor[shape, dtype] and T.Buffer[shape, dtype] take a subscript}}
        c = T.alloc_ub((4,), T.exp)  # expected-error col 30 {{expected a dtype such as "float16" or T.float16, got T.exp}}
        d = T.alloc_ub((4,), min)  # expected-error col 30 {{expected a dtype such as "float16" or T.float16, got the builtin 'min'}}
