# A buffer that is read and that nothing writes gets a warning at its first
# read: its elements hold no value. A buffer with any write gets none.
import tilelang.language as T


def forgot_the_load(N=1024):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            a_ub = T.alloc_ub((N,), "float32")
            b_ub = T.alloc_ub((N,), "float32")
            c_ub = T.alloc_ub((N,), "float32")
            T.copy(A, a_ub)
            for i in T.Parallel(N):
                c_ub[i] = a_ub[i] + b_ub[i]  # expected-warning col 27 {{'b_ub' is read but never written: its elements hold no value, so what is computed from them is undefined; write it first (a T.copy or T.fill into 'b_ub')}}
            for i in T.Parallel(N):
                c_ub[i] = c_ub[i] * b_ub[i]
            T.copy(c_ub, C)

    return main


# Read through a view, by a copy.
def through_a_view():
    @T.prim_func
    def main(C: T.Tensor((4, 16), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            flat = T.alloc_ub((64,), "float32")
            tile = T.view(flat, (4, 16))
            T.copy(tile, C)  # expected-warning col 13 {{'flat' is read (through its view 'tile') but never written: its elements hold no value, so what is computed from them is undefined; write it first (a T.copy or T.fill into 'flat')}}

    return main


# Nothing to say: a fill, an accumulating gemm, an alloc_var with init, a
# reduce's destination.
def all_written():
    @T.prim_func
    def main(A: T.Tensor((16, 16), "float16"), C: T.Tensor((16, 16), "float32"), S: T.Tensor((16,), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            a_l1 = T.alloc_l1((16, 16), "float16")
            a_l0 = T.alloc_l0a((16, 16), "float16")
            b_l0 = T.alloc_l0b((16, 16), "float16")
            c_l0 = T.alloc_l0c((16, 16), "float32")
            c_ub = T.alloc_ub((16, 16), "float32")
            s_ub = T.alloc_ub((16,), "float32")
            k = T.alloc_var("int32", init=0)
            T.copy(A, a_l1)
            T.copy(a_l1, a_l0)
            T.copy(a_l1, b_l0)
            T.gemm(a_l0, b_l0, c_l0, clear_accum=False)
            T.copy(c_l0, c_ub)  # expected-warning col 13 {{in a mixed T.Kernel both vector cores (AIV 0 and AIV 1) run the vector tasks, each on its own UB, but this L0C -> UB copy writes AIV 0's UB only (sub_blockid 0): on the hardware AIV 1 computes with UB bytes nothing wrote. Write 'with T.MixedKernel(n, sids=1) as (bx, sid):' to run the vector tasks on AIV 0 alone (what tilesched simulates), or split the tile with T.dual_copy in the manual form ('with T.Cube():' / 'with T.Vector() as sid:')}}
            T.reduce_sum(c_ub, s_ub, dim=1)
            s_ub[k] = s_ub[k] + 1.0
            T.copy(c_ub, C)
            T.copy(s_ub, S)

    return main
