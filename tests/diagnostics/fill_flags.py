# T.fill / T.clear and the explicit synchronisation statements.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((1024,), "float32")
        l1 = T.alloc_l1((64, 64), "float16")
        T.fill(a, 0.0)
        T.clear(l1)
        T.fill(a[0:512], 1)
        T.fill(A, 0.0)  # expected-error col 16 {{T.fill on a global tensor is not supported; fill an on-chip buffer and copy it}}
        T.clear(A[0:16])  # expected-error col 17 {{T.clear on a global tensor is not supported; fill an on-chip buffer and copy it}}
        T.fill(a)  # expected-error col 9 {{T.fill takes a buffer and a value}}
        T.clear(a, 0.0)  # expected-error col 9 {{T.clear takes one buffer}}
        T.fill(a, 0.0, value=1.0)  # expected-error col 24 {{unknown keyword argument 'value' to T.fill; it takes no keyword arguments}}
        T.fill(3, 0.0)  # expected-error col 16 {{T.fill destination must be a buffer or a buffer region, got int}}
        T.set_flag("MTE2", "V", 0)
        T.wait_flag("mte2", "v", 0)
        T.pipe_barrier("V")
        T.pipe_barrier("ALL")
        T.barrier_all()
        T.set_flag("MTE2", "VEC", 0)  # expected-error col 28 {{unknown pipe 'VEC'; pipes are MTE1, MTE2, MTE3, M, V, FIX, S}}
        T.set_flag("V", "V", 0)  # expected-error col 9 {{set_flag/wait_flag need two different pipes; use T.pipe_barrier within one pipe}}
        T.set_flag("MTE2", "V", 8)  # expected-error col 33 {{event id 8 is out of range; each hard event has ids 0-7}}
        T.set_flag("MTE2", "V", -1)  # expected-error col 33 {{event id -1 is out of range; each hard event has ids 0-7}}
        T.wait_flag("MTE2", "V")  # expected-error col 9 {{T.wait_flag takes (src_pipe, dst_pipe, event_id)}}
        T.set_flag(2, "V", 0)  # expected-error col 9 {{T.set_flag needs pipe names such as "MTE2"}}
        T.pipe_barrier()  # expected-error col 9 {{T.pipe_barrier takes one pipe name (or "ALL")}}
        T.pipe_barrier("X")  # expected-error col 24 {{unknown pipe 'X'; pipes are MTE1, MTE2, MTE3, M, V, FIX, S}}
        T.set_flag("MTE2", "V", 0, event=1)  # expected-error col 36 {{unknown keyword argument 'event' to T.set_flag; it takes no keyword arguments}}
