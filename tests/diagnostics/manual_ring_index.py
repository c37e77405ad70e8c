# A manual ring whose size no index of the buffer reflects gets a warning at
# its annotation entry; num_stages=0 on T.Pipelined gets one at the value.
import tilelang.language as T


def ring_of_three_indexed_by_two(N=2048):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            ring = T.alloc_ub((3, 256), "float32")
            T.annotate_manual_multi_buffer({ring: 3})  # expected-warning col 45 {{the manual ring 'ring' has 3 slots, but no index of 'ring' is taken modulo 3, so no iteration selects its slot by the ring; index it as e.g. ring[i % 3, ...], or give the ring the size its index uses}}
            for s in T.Pipelined(N // 256, num_stages=2):
                T.copy(A[s * 256 : s * 256 + 256], ring[s % 2, :])
                T.copy(ring[s % 2, :], C[s * 256 : s * 256 + 256])

    return main


# Nothing to say: the index is modulo the ring through a name, a loop over
# the slots names each one, and a slot read from run-time state may be right.
def rings_that_select():
    @T.prim_func
    def main(A: T.Tensor((2048,), "float32"), C: T.Tensor((2048,), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            ring = T.alloc_ub((2, 256), "float32")
            pair = T.alloc_ub((2, 256), "float32")
            flat = T.alloc_ub((768,), "float32")
            slot = T.alloc_var("int32", init=0)
            T.annotate_manual_multi_buffer(ring, pair, {flat: 3})
            for s in T.Pipelined(8, num_stages=2):
                k = s % 2
                T.copy(A[s * 256 : s * 256 + 256], ring[k, :])
                T.copy(ring[k, :], C[s * 256 : s * 256 + 256])
                T.copy(A[s * 256 : s * 256 + 256], flat[slot * 256 : slot * 256 + 256])
                slot = slot + 1
                if slot == 3:
                    slot = 0
            for j in T.serial(2):
                T.copy(A[j * 256 : j * 256 + 256], pair[j, :])
            T.copy(pair[1, :], C[0:256])

    return main


def pipelined_with_no_stages():
    @T.prim_func
    def main(A: T.Tensor((2048,), "float32"), C: T.Tensor((2048,), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            a_ub = T.alloc_ub((256,), "float32")
            for s in T.Pipelined(8, num_stages=0):  # expected-warning col 48 {{num_stages=0 gives no buffer of this loop a second version: it runs like T.serial; use num_stages=2 to double-buffer, or T.serial to say it is serial}}
                T.copy(A[s * 256 : s * 256 + 256], a_ub)
                T.copy(a_ub, C[s * 256 : s * 256 + 256])

    return main
