# T.dual_copy(src, dst) splits a tile between the two vector cores: the
# hardware copy (L0C -> UB, one FixPipe inside 'with T.Cube():') and the
# software copies (GM -> UB, UB -> GM, UB -> L1: one copy per AIV, indexed by
# sid, inside 'with T.Vector() as sid:'). The split axis is the one extent
# (1-D) or exactly one of the two trailing extents halved (2:1) between the
# whole tile and the half. Every other form is an error at the call.
import tilelang.language as T


@T.prim_func
def shapes(A: T.Tensor((128, 128), "float32")):
    with T.Kernel(1) as bx:
        acc = T.alloc_l0c((128, 128), "float32")
        acc_1d = T.alloc_l0c((128,), "float32")
        l1 = T.alloc_l1((128, 128), "float32")
        ub = T.alloc_ub((64, 128), "float32")
        ub_1d = T.alloc_ub((64,), "float32")
        ub63 = T.alloc_ub((63, 128), "float32")
        ub_same = T.alloc_ub((128, 128), "float32")
        with T.Cube():
            T.clear(acc)
            T.clear(acc_1d)
            T.dual_copy(acc)  # expected-error col 13 {{T.dual_copy takes a source and a destination (1 given)}}
            T.dual_copy(acc, ub, ub)  # expected-error col 13 {{T.dual_copy takes a source and a destination (3 given)}}
            T.dual_copy(acc, ub, flag=1)  # expected-error col 34 {{unknown keyword argument 'flag' to T.dual_copy; accepted: unit_flag_ctrl}}
            T.dual_copy(A[0:128, 0:128], l1)  # expected-error col 13 {{T.dual_copy supports only L0C->UB and GM->UB (the source is the whole tile) and UB->GM and UB->L1 (the destination is the whole tile), not GM -> L1}}
            T.dual_copy(acc, ub_1d)  # expected-error col 13 {{T.dual_copy needs both regions 1-D or both at least 2-D, got (128, 128) and (64,)}}
            T.dual_copy(acc[0:127, 0:128], ub63)  # expected-error col 13 {{cannot infer the dual_copy split direction from acc (127, 128) and ub63 (63, 128): exactly one of the two trailing dimensions must have an exact 2:1 extent ratio between the whole tile and the half}}
            T.dual_copy(acc, ub_same)  # expected-error col 13 {{cannot infer the dual_copy split direction from acc (128, 128) and ub_same (128, 128): exactly one of the two trailing dimensions must have an exact 2:1 extent ratio between the whole tile and the half}}
            T.dual_copy(acc_1d, ub_1d)  # expected-error col 13 {{a hardware dual_copy (L0C -> UB) needs at least 2-D regions}}


@T.prim_func
def software_paths(A: T.Tensor((128, 128), "float32"), B: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        l1 = T.alloc_l1((128, 128), "float32")
        ub = T.alloc_ub((64, 128), "float32")
        ub_1d = T.alloc_ub((64,), "float32")
        with T.Vector() as sid:
            T.copy(A[sid * 64, 0], ub)
            T.dual_copy(B[0:127], ub_1d[0:63])  # expected-error col 13 {{cannot infer the dual_copy split direction from B (127,) and ub_1d (63,): the sole dimension must have an exact 2:1 extent ratio between the whole tile and the half}}
            T.dual_copy(B[0:128], ub_1d[0:63])  # expected-error col 13 {{cannot infer the dual_copy split direction from B (128,) and ub_1d (63,): the sole dimension must have an exact 2:1 extent ratio between the whole tile and the half}}
            T.dual_copy(ub, ub)  # expected-error col 13 {{T.dual_copy supports only L0C->UB and GM->UB (the source is the whole tile) and UB->GM and UB->L1 (the destination is the whole tile), not UB -> UB}}
            T.dual_copy(l1, ub)  # expected-error col 13 {{T.dual_copy supports only L0C->UB and GM->UB (the source is the whole tile) and UB->GM and UB->L1 (the destination is the whole tile), not L1 -> UB}}
            T.dual_copy(ub, A[0:128, 0:128])
            for i in T.Parallel(4):
                T.dual_copy(ub, A[0:128, 0:128])  # expected-error col 17 {{T.dual_copy is not allowed inside a T.Parallel loop}}
                ub[i, 0] = 0.0
            with T.SimdVF():
                T.dual_copy(ub, A[0:128, 0:128])  # expected-error col 17 {{T.dual_copy is not allowed inside a VF region}}


# The hardware copy: no conversion, an N split (columns) needs N % 32 == 0,
# and it is a FixPipe of the cube core.
@T.prim_func
def hardware(A: T.Tensor((128, 128), "float32")):
    with T.Kernel(1) as bx:
        acc = T.alloc_l0c((128, 128), "float32")
        acc48 = T.alloc_l0c((64, 48), "float32")
        ub = T.alloc_ub((64, 128), "float32")
        ub16 = T.alloc_ub((64, 128), "float16")
        ub24 = T.alloc_ub((64, 24), "float32")
        with T.Cube():
            T.clear(acc)
            T.clear(acc48)
            T.dual_copy(acc, ub16)  # expected-error col 13 {{a dual_copy that converts (float32 -> float16) is not supported yet; copy to a float32 UB buffer and cast on the vector cores}}
            T.dual_copy(acc48, ub24)  # expected-error col 13 {{a dual_copy split on N needs N to be a multiple of 32, got 48}}
            T.dual_copy(acc, ub)
            T.dual_copy(A[0:128, 0:128], ub)  # expected-error col 13 {{a software dual_copy (one copy per AIV, indexed by sid) must be inside 'with T.Vector() as sid:'}}
        with T.Vector() as sid:
            T.dual_copy(acc, ub)  # expected-error col 13 {{a hardware dual_copy (L0C -> UB) is a FixPipe of the cube core: write it inside 'with T.Cube():'}}
            T.dual_copy(ub, A[0:128, 0:128])
        T.dual_copy(A[0:128, 0:128], ub)  # expected-error col 9 {{a software dual_copy (one copy per AIV, indexed by sid) must be inside 'with T.Vector() as sid:'}}
        T.dual_copy(acc, ub)  # expected-error col 9 {{a hardware dual_copy (L0C -> UB) is a FixPipe of the cube core: write it inside 'with T.Cube():'}}


# In a kernel without blocks (and in a T.MixedKernel) a dual copy is not
# assigned to the cores by the compiler yet.
@T.prim_func
def no_blocks(A: T.Tensor((128, 128), "float32")):
    with T.Kernel(1) as bx:
        acc = T.alloc_l0c((128, 128), "float32")
        ub = T.alloc_ub((64, 128), "float32")
        T.dual_copy(acc, ub)  # expected-error col 9 {{T.dual_copy outside 'with T.Cube():' / 'with T.Vector():' blocks is not supported yet (the compiler would assign it to the core group and synchronise it); write the manual form}}
        T.dual_copy(A[0:128, 0:128], ub)  # expected-error col 9 {{T.dual_copy outside 'with T.Cube():' / 'with T.Vector():' blocks is not supported yet (the compiler would assign it to the core group and synchronise it); write the manual form}}


@T.prim_func
def mixed_kernel(A: T.Tensor((128, 128), "float32")):
    with T.MixedKernel(1, sids=1) as (bx, sid):
        acc = T.alloc_l0c((128, 128), "float32")
        ub = T.alloc_ub((64, 128), "float32")
        T.dual_copy(acc, ub)  # expected-error col 9 {{T.dual_copy outside 'with T.Cube():' / 'with T.Vector():' blocks is not supported yet (the compiler would assign it to the core group and synchronise it); write the manual form}}
        T.dual_copy(A[0:128, 0:128], ub)  # expected-error col 9 {{a software dual_copy (one copy per AIV, indexed by sid) must be inside 'with T.Vector() as sid:'}}


# A software copy splits the tile across both AIVs: not under vector=1.
@T.prim_func
def one_vector_core(A: T.Tensor((128, 128), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((64, 128), "float32")
        with T.Vector(vector=1) as sid:
            T.dual_copy(A[0:128, 0:128], ub)  # expected-error col 13 {{a software dual_copy splits the tile across two AIVs, but this T.Vector block runs on one (vector=1)}}


# A 1-D UB -> L1 copy moves a multiple of 32 bytes per AIV (here 4 floats,
# 16 bytes, as upstream's 3 -> 6 floats case).
@T.prim_func
def ub_to_l1_payload(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub4 = T.alloc_ub((4,), "float32")
        ub8 = T.alloc_ub((8,), "float32")
        l1 = T.alloc_l1((16,), "float32")
        with T.Vector() as sid:
            T.copy(A[0:4], ub4)
            T.copy(A[0:8], ub8)
            T.dual_copy(ub4, l1[0:8])  # expected-error col 13 {{a UB -> L1 dual_copy moves a multiple of 32 bytes per AIV, got 16}}
            T.dual_copy(ub8, l1)


# The allocation shapes decide the axis only when every other extent of the
# two regions agrees (here the columns: 64 against 128).
@T.prim_func
def unequal_other_extent(A: T.Tensor((128, 128), "float32")):
    with T.Kernel(1) as bx:
        acc = T.alloc_l0c((128, 128), "float32")
        ub = T.alloc_ub((64, 128), "float32")
        with T.Cube():
            T.clear(acc)
            T.dual_copy(acc[0:128, 0:64], ub)  # expected-error col 13 {{cannot infer the dual_copy split direction from acc (128, 64) and ub (64, 128): exactly one of the two trailing dimensions must have an exact 2:1 extent ratio between the whole tile and the half}}


# The hardware copy gives a half to each AIV: a kernel whose T.Vector blocks
# run on one AIV would drop the second half.
@T.prim_func
def hardware_with_one_vector_core(A: T.Tensor((128, 128), "float32")):
    with T.Kernel(1) as bx:
        acc = T.alloc_l0c((128, 128), "float32")
        ub = T.alloc_ub((64, 128), "float32")
        with T.Cube():
            T.clear(acc)
            T.dual_copy(acc, ub)  # expected-error col 13 {{this dual_copy gives half of the tile to each of two AIVs, but the kernel's T.Vector blocks run on one (vector=1): the second half would reach no core}}
        with T.Vector(vector=1) as sid:
            T.copy(ub, A[0:64, 0:128])
