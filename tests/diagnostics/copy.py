# T.copy: regions, head addresses lined up from the right, element counts,
# legal paths (SPEC §1.5) and hardware keyword arguments.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 256), "float32"), B: T.Tensor((64, 256), "float32"), n: T.int32):
    with T.Kernel(4) as bx:
        a = T.alloc_shared((4, 256), "float32")
        row = T.alloc_shared((256,), "float32")
        l1 = T.alloc_l1((64, 64), "float16")
        l0a = T.alloc_l0a((64, 64), "float16")
        l0b = T.alloc_l0b((64, 64), "float16")
        l0c = T.alloc_l0c((64, 64), "float32")
        frag = T.alloc_fragment((256,), "float32")
        T.copy(A[0:4, :], a)
        T.copy(A[bx, 0], row)
        T.copy(A[bx * 4, 0], a)
        T.copy(A[0:2, :], a)  # expected-error col 9 {{T.copy moves 512 elements from 'A' (2, 256) but the destination 'a' (4, 256) holds 1024; give pad_value= to fill the rest of the destination}}
        T.copy(A[0, 0:128], row)  # expected-error col 9 {{T.copy moves 128 elements from 'A' (1, 128) but the destination 'row' (256,) holds 256; give pad_value= to fill the rest of the destination}}
        T.copy(A[0, 0:128], row, pad_value=-1.0)
        T.copy(A[0, 0:128], row, pad_value=row[0])  # expected-error col 44 {{pad_value= must not read a buffer; load the value into a scalar first (v = buf[i]) and pass the scalar}}
        T.copy(A[0:2, 0:100], a, pad_value=0.0)
        T.copy(A[0:8, 0:64], a, pad_value=0.0)  # expected-error col 9 {{T.copy moves 512 elements from 'A' (8, 64) but the destination 'a' (4, 256) holds 1024; with pad_value= the source must fit inside the destination in every dimension (lined up from the right)}}
        T.copy(a, B[0:4, :], pad_value=0.0)  # expected-error col 30 {{pad_value= is only supported for copies from global memory (global→shared, global→shared.l1), not from shared}}
        T.copy(a, B[0, 0])
        T.copy(A[0, 0], B[0, 0])  # expected-error col 9 {{both operands of T.copy are single elements; give one of them as a buffer or a slice}}
        T.copy(A, B)  # expected-error col 9 {{T.copy from global to global is not supported; legal paths: global→shared, global→shared.l1, shared→global, shared→shared.l1, shared.l1→shared.l0a/l0b, shared.l0c→shared/global, and vector moves between shared and local buffers}}
        T.copy(l1, A[0:64, 0:64])  # expected-error col 9 {{T.copy from shared.l1 to global is not supported; legal paths: global→shared, global→shared.l1, shared→global, shared→shared.l1, shared.l1→shared.l0a/l0b, shared.l0c→shared/global, and vector moves between shared and local buffers}}
        T.copy(l0a, l0b)  # expected-error col 9 {{T.copy from shared.l0a to shared.l0b is not supported; legal paths: global→shared, global→shared.l1, shared→global, shared→shared.l1, shared.l1→shared.l0a/l0b, shared.l0c→shared/global, and vector moves between shared and local buffers}}
        T.copy(A[0:64, 0:64], l0c)  # expected-error col 9 {{T.copy from global to shared.l0c is not supported; legal paths: global→shared, global→shared.l1, shared→global, shared→shared.l1, shared.l1→shared.l0a/l0b, shared.l0c→shared/global, and vector moves between shared and local buffers}}
        T.copy(A[0:64, 0:64], l0a)  # expected-error col 9 {{T.copy from global to shared.l0a is not supported; legal paths: global→shared, global→shared.l1, shared→global, shared→shared.l1, shared.l1→shared.l0a/l0b, shared.l0c→shared/global, and vector moves between shared and local buffers}}
        T.copy(l1, l0a)
        T.copy(l0c, A[0:64, 0:64])
        T.copy(frag, row)
        T.copy(A[64:68, :], a)  # expected-error col 18 {{region [64:68] is out of bounds for dimension 0 of 'A' (size 64)}}
        T.copy(A[62:66, :], a)  # expected-warning col 18 {{region [62:66] runs past the end of dimension 0 of 'A' (size 64); the copy is clipped at the tensor's end, a tail (docs/simulator.md)}}
        T.copy(A[-1:3, :], a)  # expected-error col 18 {{region [-1:3] is out of bounds for dimension 0 of 'A' (size 64)}}
        T.copy(A[0:n, :], a)  # expected-error col 18 {{the extent of this slice of 'A' is not a compile-time constant}}
        T.copy(A[n:n + 4, :], a)
        T.copy(A[0:4:2, :], a)  # expected-error col 22 {{slices with a step are not supported}}
        T.copy(A[4:4, :], a)  # expected-error col 18 {{slice of 'A' in dimension 0 is empty (extent 0)}}
        T.copy(A[0:4], a)  # expected-error col 16 {{buffer 'A' has rank 2 but is indexed with 1 index}}
        T.copy(A[0:4, 0:256, 0], a)  # expected-error col 16 {{buffer 'A' has rank 2 but is indexed with 3 indices}}
        T.copy(A[0:4, :], a, pad_value=0.0, l2_cache_ctrl=1, unit_flag_ctrl=True)
        T.copy(A[0:64, 0:64], l1, transpose=True)
        T.copy(A[0:4, :], a, transpose=True)  # expected-error col 30 {{transpose=True is only supported for global→shared.l1 and shared.l1→shared.l0a/l0b copies}}
        T.copy(A[0:4, :], a, transpose=False)
        T.copy(A[0:4, :], a, mode="fast")  # expected-error col 30 {{unknown keyword argument 'mode' to T.copy; accepted: l2_cache_ctrl, unit_flag_ctrl, pad_value, data_select, transpose}}
        T.copy(A[0:4, :])  # expected-error col 9 {{T.copy takes a source and a destination (1 given)}}
        T.copy(A[0:4, :], a, row)  # expected-error col 9 {{T.copy takes a source and a destination (3 given)}}
        T.copy(1, a)  # expected-error col 16 {{T.copy source must be a buffer or a buffer region, got int}}
        T.copy(A[0:4, 0.5], a)  # expected-error col 23 {{buffer indices must be integers}}
        T.copy(A[0:4, :], a[0:2, 0:512])  # expected-error col 34 {{region [0:512] is out of bounds for dimension 1 of 'a' (size 256)}}
        T.copy(row, a[1:2, :])
        T.copy(A[bx, :], a[bx, :])
