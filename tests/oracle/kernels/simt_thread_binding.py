"""Per-thread code in a T.SimtVF region with T.get_thread_binding, as
upstream's SIMT examples write it: a 2-D block of threads=(8, 16), a name
for each thread's linear index, a read of another thread's write (the barrier
upstream's AutoSync inserts), a branch taken by one column of threads, and
integer bitwise operators.

    t[k] = 3k,  O[k] = t[k ^ 127] = 3 (k ^ 127),  k = ty * 8 + tx in 0..127
    R[ty] = t[8 ty]  (the threads with tx == 0)
    B[k] = ((k & 5) | (k << 2)) ^ (k >> 1)
"""

import tilelang
import tilelang.language as T


def simt_thread_binding():
    @T.prim_func
    def main(O: T.Tensor((128,), "int32"), R: T.Tensor((16,), "int32"), B: T.Tensor((128,), "int32")):
        with T.Kernel(1):
            t = T.alloc_shared((128,), "int32")
            o = T.alloc_shared((128,), "int32")
            r = T.alloc_shared((16,), "int32")
            b = T.alloc_shared((128,), "int32")
            with T.SimtVF(threads=(8, 16)):
                tx = T.get_thread_binding()
                ty = T.get_thread_binding(1)
                k = ty * 8 + tx
                t[k] = k * 3
                o[k] = t[k ^ 127]
                if tx == 0:
                    r[ty] = t[ty * 8]
                b[k] = ((k & 5) | (k << 2)) ^ (k >> 1)
            T.copy(o, O)
            T.copy(r, R)
            T.copy(b, B)

    return main


if __name__ == "__main__":
    simt_thread_binding()
