# Cross-core flags of the manual form: T.ascend_cross_core_set_flag(mode,
# pipe, id) / T.ascend_cross_core_wait_flag(...) sit inside a 'with T.Cube():'
# or 'with T.Vector():' block, take mode 4 (0, 1 and 2 are not simulated yet;
# other modes do not exist), a pipe of the block's core (S and MTE2 are on
# both) and a flag id 0-31 on the AIC (id + 16 * sid), 0-15 on an AIV. The
# errors are at the argument; T.ascend_sync_inter_arrive/wait (mode 0) are
# not supported yet.
import tilelang.language as T


@T.prim_func
def outside_blocks(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        T.ascend_cross_core_set_flag(4, "PIPE_FIX", 0)  # expected-error col 9 {{T.ascend_cross_core_set_flag synchronises the cube core with the vector cores: write it inside 'with T.Cube():' or 'with T.Vector() as sid:'}}
        with T.Vector() as sid:
            T.copy(A[0:128], ub)
        T.ascend_cross_core_wait_flag(4, "PIPE_V", 0)  # expected-error col 9 {{T.ascend_cross_core_wait_flag synchronises the cube core with the vector cores: write it inside 'with T.Cube():' or 'with T.Vector() as sid:'}}


@T.prim_func
def modes(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        l1 = T.alloc_l1((128,), "float32")
        with T.Cube():
            T.copy(A[0:128], l1)
            T.ascend_cross_core_set_flag(3, "PIPE_FIX", 0)  # expected-error col 42 {{cross-core mode 3 does not exist; the modes are 0 (all cores of the launch), 1 (the AIVs of a group), 2 (AIC with both AIVs) and 4 (AIC with one AIV)}}
            T.ascend_cross_core_set_flag(0, "PIPE_FIX", 0)  # expected-error col 42 {{cross-core mode 0 is not supported yet; mode 4 (the AIC with one AIV, ids + 16 * sid on the AIC side) is}}
            T.ascend_cross_core_set_flag(1, "PIPE_FIX", 0)  # expected-error col 42 {{cross-core mode 1 is not supported yet; mode 4 (the AIC with one AIV, ids + 16 * sid on the AIC side) is}}
            T.ascend_cross_core_wait_flag(2, "PIPE_FIX", 0)  # expected-error col 43 {{cross-core mode 2 is not supported yet; mode 4 (the AIC with one AIV, ids + 16 * sid on the AIC side) is}}
            T.ascend_cross_core_set_flag(bx + 4, "PIPE_FIX", 0)  # expected-error col 42 {{the cross-core mode must be a compile-time integer, got a run-time value}}
            T.ascend_sync_inter_arrive("PIPE_FIX", 0)  # expected-error col 13 {{T.ascend_sync_inter_arrive (a mode-0 barrier across every core of the launch) is not supported yet: the simulator runs one core group at a time}}
            T.ascend_sync_inter_wait("PIPE_FIX", 0)  # expected-error col 13 {{T.ascend_sync_inter_wait (a mode-0 barrier across every core of the launch) is not supported yet: the simulator runs one core group at a time}}


@T.prim_func
def arguments(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        l1 = T.alloc_l1((128,), "float32")
        with T.Cube():
            T.copy(A[0:128], l1)
            T.ascend_cross_core_set_flag(4, "PIPE_FIX")  # expected-error col 13 {{T.ascend_cross_core_set_flag takes (mode, pipe, flag_id) with a pipe such as "PIPE_FIX"}}
            T.ascend_cross_core_wait_flag(4, 5, 0)  # expected-error col 13 {{T.ascend_cross_core_wait_flag takes (mode, pipe, flag_id) with a pipe such as "PIPE_FIX"}}
            T.ascend_cross_core_set_flag(4, "PIPE_FIX", 0, x=1)  # expected-error col 60 {{unknown keyword argument 'x' to T.ascend_cross_core_set_flag; it takes no keyword arguments}}
            T.ascend_cross_core_set_flag(4, "PIPE_Q", 0)  # expected-error col 45 {{'PIPE_Q' is not a pipe; use one such as "PIPE_FIX"}}
            T.ascend_cross_core_wait_flag(4, "fixpipe", 0)  # expected-error col 46 {{'fixpipe' is not a pipe; use one such as "PIPE_FIX"}}
            T.ascend_cross_core_set_flag(4, "PIPE_FIX", 1.0)  # expected-error col 57 {{a flag id must be an integer}}


@T.prim_func
def vf_and_parallel(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        with T.Vector() as sid:
            T.copy(A[0:128], ub)
            with T.SimdVF():
                T.ascend_cross_core_wait_flag(4, "PIPE_V", 0)  # expected-error col 17 {{T.ascend_cross_core_wait_flag is not allowed inside a VF region}}
            for i in T.Parallel(128):
                T.ascend_cross_core_set_flag(4, "PIPE_V", 0)  # expected-error col 17 {{T.ascend_cross_core_set_flag is not allowed inside a T.Parallel loop}}
                ub[i] = 1.0


# The pipes of the cube core (AIC) are S, MTE1, MTE2, M and FIX; an AIC flag
# id is 0-31. MTE2 and S, on both cores, and id 31 are accepted.
@T.prim_func
def cube_pipes_and_ids(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        l1 = T.alloc_l1((128,), "float32")
        with T.Cube():
            T.copy(A[0:128], l1)
            T.ascend_cross_core_set_flag(4, "PIPE_V", 0)  # expected-error col 45 {{pipe V is not on the cube core (AIC), which runs 'with T.Cube()'}}
            T.ascend_cross_core_wait_flag(4, "PIPE_MTE3", 0)  # expected-error col 46 {{pipe MTE3 is not on the cube core (AIC), which runs 'with T.Cube()'}}
            T.ascend_cross_core_set_flag(4, "PIPE_FIX", 32)  # expected-error col 57 {{cross-core flag id 32 is out of range: the pool has 16 slots, addressed 0-15 from an AIV and 0-31 (id + 16 * sid) from the AIC}}
            T.ascend_cross_core_wait_flag(4, "PIPE_FIX", -1)  # expected-error col 58 {{cross-core flag id -1 is out of range: the pool has 16 slots, addressed 0-15 from an AIV and 0-31 (id + 16 * sid) from the AIC}}
            T.ascend_cross_core_set_flag(4, "PIPE_FIX", 31)
            T.ascend_cross_core_wait_flag(4, "PIPE_FIX", 31)
            T.ascend_cross_core_set_flag(4, "PIPE_MTE2", 1)
            T.ascend_cross_core_wait_flag(4, "MTE2", 1)
            T.ascend_cross_core_set_flag(4, "PIPE_S", 2)
            T.ascend_cross_core_wait_flag(4, "pipe_s", 2)


# The pipes of a vector core (AIV) are S, MTE2, V and MTE3; an AIV flag id is
# 0-15.
@T.prim_func
def vector_pipes_and_ids(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        with T.Vector() as sid:
            T.copy(A[0:128], ub)
            T.ascend_cross_core_wait_flag(4, "PIPE_FIX", 0)  # expected-error col 46 {{pipe FIX is not on the vector core (AIV), which runs 'with T.Vector()'}}
            T.ascend_cross_core_set_flag(4, "PIPE_M", 0)  # expected-error col 45 {{pipe M is not on the vector core (AIV), which runs 'with T.Vector()'}}
            T.ascend_cross_core_set_flag(4, "PIPE_MTE1", 0)  # expected-error col 45 {{pipe MTE1 is not on the vector core (AIV), which runs 'with T.Vector()'}}
            T.ascend_cross_core_wait_flag(4, "PIPE_V", 16)  # expected-error col 56 {{cross-core flag id 16 is out of range: the pool has 16 slots, addressed 0-15 from an AIV and 0-31 (id + 16 * sid) from the AIC}}
            T.ascend_cross_core_set_flag(4, "PIPE_MTE3", 15)
            T.ascend_cross_core_wait_flag(4, "PIPE_V", 15)


# With one AIV the AIC's ids 16-31 (AIV 1's slots) reach no core.
@T.prim_func
def aiv1_ids_with_one_vector_core(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        with T.Cube():
            T.ascend_cross_core_set_flag(4, "PIPE_FIX", 3)
            T.ascend_cross_core_set_flag(4, "PIPE_FIX", 22)  # expected-error col 13 {{this cross-core flag id (16-31: id + 16 * sid with sid 1) addresses AIV 1, but the kernel's T.Vector blocks run on one (vector=1): use 0-15}}
        with T.Vector(vector=1):
            T.ascend_cross_core_wait_flag(4, "PIPE_V", 3)
            T.fill(ub, 1.0)
