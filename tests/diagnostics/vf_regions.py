# T.SimtVF / T.SimdVF regions hold vector work only (a SIMT region copies with
# global memory element by element).
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32")):
    with T.Kernel(4) as bx:
        a = T.alloc_shared((256,), "float32")
        l1 = T.alloc_l1((64, 64), "float16")
        l1b = T.alloc_l1((64, 64), "float16")
        l0c = T.alloc_l0c((64, 64), "float32")
        frag = T.alloc_fragment((256,), "float32")
        with T.SimtVF(threads=128, latency=64):
            for i in T.Parallel(256):
                frag[i] = a[i]
            T.copy(frag, a)
        with T.SimdVF():
            T.reduce_sum(a, a[0:1])
        with T.SimtVF(latency=8):  # expected-error col 14 {{T.SimtVF needs threads=K}}
            pass
        with T.SimtVF(threads=0):  # expected-error col 31 {{threads must be positive}}
            pass
        with T.SimdVF(latency=-1):  # expected-error col 31 {{latency must be a number of cycles (0 for the estimate), got -1}}
            pass
        with T.SimdVF(threads=4):  # expected-error col 23 {{unknown keyword argument 'threads' to T.SimdVF; accepted: latency}}
            pass
        with T.SimdVF(3):
            pass
        with T.SimdVF(3, 4):  # expected-error col 14 {{T.SimdVF takes at most 1 positional argument (latency) (2 given)}}
            pass
        with T.SimdVF(3, latency=4):  # expected-error col 26 {{T.SimdVF got latency both by position and as latency=}}
            pass
        with T.SimtVF(64, 8):
            pass
        with T.SimdVF(latency=8):
            with T.SimdVF(latency=8):  # expected-error col 13 {{VF regions cannot be nested}}
                pass
            T.copy(A[0:256], a)  # expected-error col 13 {{T.copy from global to shared runs on MTE2 and is not allowed inside a VF region; only vector (V) operations are}}
            T.gemm(l1, l1b, l0c)  # expected-error col 13 {{T.gemm is not allowed inside a VF region}}
            T.clear(l1)  # expected-error col 13 {{T.clear of an L1 buffer is not allowed inside a VF region}}
        for i in T.Parallel(4):
            with T.SimdVF():  # expected-error col 13 {{a VF region is not allowed inside a T.Parallel loop}}
                pass
        with T.SimdVF(), T.SimdVF():  # expected-error col 26 {{only one item per 'with' is supported in a kernel (besides a leading T.Stage(k))}}
            pass
        # In a SIMT region a copy with global memory is the threads' own
        # element copy (no DMA): no padding, transposes or atomics there.
        with T.SimtVF(threads=64):
            T.copy(A[0:256], a)
            T.copy(A[0:128], a, pad_value=0.0)  # expected-error col 33 {{T.copy(..., pad_value=) inside a T.SimtVF region is not supported yet (the region's threads copy element by element)}}
            T.copy(A[0:128], a)  # expected-error col 13 {{T.copy moves 128 elements from 'A' (128,) but the destination 'a' (256,) holds 256}}
        with T.SimdVF():
            T.set_flag("MTE2", "V", 0)  # expected-error col 13 {{T.set_flag is not allowed inside a VF region; synchronise around the region (it runs as one V instruction)}}
            T.ascend_wait_flag("MTE2_V", 0)  # expected-error col 13 {{T.wait_flag is not allowed inside a VF region; synchronise around the region (it runs as one V instruction)}}
            T.pipe_barrier("V")  # expected-error col 13 {{T.pipe_barrier is not allowed inside a VF region; synchronise around the region (it runs as one V instruction)}}
