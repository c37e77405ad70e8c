# T.atomic_add/max/min(C[i], v): one element of a global tensor, a value that
# reads no buffer; its value, the element before the update (return_prev=True),
# inside VF regions only.
# T.assume_conflict(a, b) is accepted with a warning (it changes nothing here).
# T.set_hf32_mode(None | "nearest_zero" | "nearest_even") is accepted (a warning when on).
# T.print is accepted with a warning (not simulated).
import tilelang.language as T


@T.prim_func
def main(C: T.Tensor((4,), "float32"), A: T.Tensor((4,), "float32"), K: T.Tensor((4,), "int8")):
    with T.Kernel(2) as bx:
        ub = T.alloc_shared((4,), "float32")
        T.atomic_add(C[bx], 1.0)
        T.atomic_add(ub[0], 1.0)  # expected-error col 22 {{T.atomic_add updates one element of a global tensor, e.g. T.atomic_add(C[i], v); got an element of 'ub'}}
        T.atomic_max(C[0:2], 1.0)  # expected-error col 22 {{T.atomic_max updates one element of a global tensor, e.g. T.atomic_max(C[i], v); got an element of 'C'}}
        T.atomic_min(C[0], A[0])  # expected-error col 28 {{the value of T.atomic_min must not read a buffer; load it into a scalar first (x = buf[i]) and pass the scalar}}
        T.atomic_add(C[0], 1.0, return_prev=True)
        T.atomic_add(C[0], 1.0, return_prev=bx > 0)  # expected-error col 45 {{return_prev= must be a compile-time True or False}}
        T.atomic_add(K[0], 1)  # expected-error col 22 {{T.atomic_add supports float32, float16, bfloat16 and int32 elements; 'K' is int8}}
        old = T.atomic_add(C[1], 2.0, return_prev=True)  # expected-error col 15 {{the value of T.atomic_add(..., return_prev=True) outside a VF region is not supported yet; update inside a T.SimtVF region}}
        with T.SimtVF(threads=4):
            prev = T.atomic_max(C[2], 2.0)  # expected-error col 20 {{T.atomic_max(...) has a value only with return_prev=True (the element before the update); call it as a statement otherwise}}
        T.atomic_add(C[0])  # expected-error col 9 {{T.atomic_add takes an element of a global tensor and a value: T.atomic_add(C[i], v) (1 given)}}


@T.prim_func
def conflict_hint(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((64,), "float32")
        b = T.alloc_shared((64,), "float32")
        T.copy(A, a)
        T.assume_conflict(a, b[0:32], cross=False)  # expected-warning col 9 {{T.assume_conflict has no effect: tilesched orders the accesses of two buffers by the bytes they touch, and distinct allocations never overlap}}
        T.assume_conflict(a, 3)  # expected-error col 9 {{T.assume_conflict takes two buffers or slices: T.assume_conflict(a, b)}}
        T.copy(a, B)


# T.set_hf32_mode: None is "off" (nothing to model); a rounding mode is
# accepted with a warning that HF32 rounding is not modelled.
@T.prim_func
def hf32(A: T.Tensor((16, 16), "float32"), B: T.Tensor((16, 16), "float32"), C: T.Tensor((16, 16), "float32")):
    with T.Kernel(1) as bx:
        T.set_hf32_mode(None)
        T.set_hf32_mode("nearest_even")  # expected-warning col 9 {{T.set_hf32_mode("nearest_even") is not modelled: the simulator multiplies float32 gemm operands in float32, without HF32 rounding, so the device's results can differ in the low mantissa bits}}
        T.set_hf32_mode("round_up")  # expected-error col 25 {{T.set_hf32_mode takes None, "nearest_zero" or "nearest_even", got 'round_up'}}
        T.set_hf32_mode()  # expected-error col 9 {{T.set_hf32_mode takes one mode (0 given)}}
        a = T.alloc_l1((16, 16), "float32")
        b = T.alloc_l1((16, 16), "float32")
        c = T.alloc_l0c((16, 16), "float32")
        T.copy(A, a)
        T.copy(B, b)
        T.gemm(a, b, c, clear_accum=True)
        T.copy(c, C)


# T.print(value or buffer, msg=...) is accepted with a warning: not simulated.
@T.prim_func
def printing(A: T.Tensor((16,), "float32")):
    with T.Kernel(2) as bx:
        a = T.alloc_shared((16,), "float32")
        T.copy(A, a)
        T.print(bx + 42, msg="block")  # expected-warning col 9 {{T.print is not simulated yet: tilesched runs the kernel without it and prints nothing}}
        T.print(a)  # expected-warning col 9 {{T.print is not simulated yet: tilesched runs the kernel without it and prints nothing}}
        T.print()  # expected-error col 9 {{T.print takes one value or buffer (0 given)}}
        T.copy(a, A)
