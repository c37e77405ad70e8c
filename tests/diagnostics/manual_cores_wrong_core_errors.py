# The statements of a 'with T.Cube():' block run on the cube core (AIC), those
# of a 'with T.Vector():' block on the vector cores (AIV): a statement on a
# pipe the block's core does not have, or touching the other core's memory
# (other than along the copy paths between the cores, L0C -> UB from the AIC
# and UB -> L1 from the AIV), is an error at it. In a kernel with blocks,
# every tile operation belongs to one of them (the first one outside is
# reported).
import tilelang.language as T


@T.prim_func
def vector_work_in_cube(A: T.Tensor((128, 128), "float16"), C: T.Tensor((128, 128), "float32")):
    with T.Kernel(1) as bx:
        a_l1 = T.alloc_l1((128, 128), "float16")
        acc = T.alloc_l0c((64, 128), "float32")
        ub = T.alloc_ub((64, 128), "float32")
        ub16 = T.alloc_ub((64, 128), "float16")
        row = T.alloc_ub((64,), "float32")
        with T.Cube():
            T.copy(A[0, 0], a_l1)
            T.clear(acc)
            T.copy(acc, ub)
            for i, j in T.Parallel(64, 128):  # expected-error col 13 {{this statement runs on pipe V, which the cube core (AIC) does not have, but it is inside 'with T.Cube()'}}
                ub[i, j] = 0.0
            T.copy(A[0, 0], ub16)  # expected-error col 13 {{this statement uses 'ub16' (UB), which is on the vector cores (AIV), but it is inside 'with T.Cube()', which runs on the cube core (AIC)}}
            T.clear(ub)  # expected-error col 13 {{this statement runs on pipe V, which the cube core (AIC) does not have, but it is inside 'with T.Cube()'}}
            T.reduce_sum(ub, row, dim=1)  # expected-error col 13 {{this statement runs on pipe V, which the cube core (AIC) does not have, but it is inside 'with T.Cube()'}}
            T.copy(ub, C[0, 0])  # expected-error col 13 {{this statement runs on pipe MTE3, which the cube core (AIC) does not have, but it is inside 'with T.Cube()'}}
            ub[0, 0] = 1.0  # expected-error col 24 {{this statement writes 'ub' (UB), which is on the vector cores (AIV), but it is inside 'with T.Cube()', which runs on the cube core (AIC)}}
            with T.SimdVF():  # expected-error col 13 {{this statement runs on pipe V, which the cube core (AIC) does not have, but it is inside 'with T.Cube()'}}
                pass


@T.prim_func
def cube_work_in_vector(A: T.Tensor((128, 128), "float16"), C: T.Tensor((128, 128), "float32")):
    with T.Kernel(1) as bx:
        a_l1 = T.alloc_l1((128, 128), "float16")
        b_l1 = T.alloc_l1((128, 128), "float16")
        acc = T.alloc_l0c((128, 128), "float32")
        l1_half = T.alloc_l1((64, 128), "float16")
        ub = T.alloc_ub((128, 128), "float32")
        ub16 = T.alloc_ub((64, 128), "float16")
        with T.Vector() as sid:
            T.copy(A[sid * 64, 0], ub16)
            T.copy(ub16, l1_half)
            T.gemm(a_l1, b_l1, acc)  # expected-error col 13 {{this statement runs on pipe M, which the vector core (AIV) does not have, but it is inside 'with T.Vector()'}}
            T.copy(A[0, 0], a_l1)  # expected-error col 13 {{this statement uses 'a_l1' (L1), which is on the cube core (AIC), but it is inside 'with T.Vector()', which runs on the vector cores (AIV)}}
            T.copy(acc, ub)  # expected-error col 13 {{this statement runs on pipe FIX, which the vector core (AIV) does not have, but it is inside 'with T.Vector()'}}
            T.clear(acc)  # expected-error col 13 {{this statement uses 'acc' (L0C), which is on the cube core (AIC), but it is inside 'with T.Vector()', which runs on the vector cores (AIV)}}
            acc[0, 0] = 1.0  # expected-error col 25 {{this statement writes 'acc' (L0C), which is on the cube core (AIC), but it is inside 'with T.Vector()', which runs on the vector cores (AIV)}}
            T.copy(ub, C[0, 0])


@T.prim_func
def copy_before_blocks(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        l1 = T.alloc_l1((128,), "float32")
        T.copy(A[0:128], ub)  # expected-error col 9 {{in a kernel with 'with T.Cube()' / 'with T.Vector()' blocks every tile operation and every store to a buffer belongs to one of them (nothing says which core runs this one)}}
        with T.Cube():
            T.copy(A[0:128], l1)
        T.copy(A[0:128], ub)


@T.prim_func
def parallel_after_blocks(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        with T.Vector() as sid:
            T.copy(A[0:128], ub)
        for k in T.serial(2):
            if k == 1:
                for i in T.Parallel(128):  # expected-error col 17 {{in a kernel with 'with T.Cube()' / 'with T.Vector()' blocks every tile operation and every store to a buffer belongs to one of them (nothing says which core runs this one)}}
                    ub[i] = 0.0


@T.prim_func
def flag_outside_blocks(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        T.ascend_set_flag("MTE2_V", 0)  # expected-error col 9 {{in a kernel with 'with T.Cube()' / 'with T.Vector()' blocks every tile operation and every store to a buffer belongs to one of them (nothing says which core runs this one)}}
        with T.Vector() as sid:
            T.copy(A[0:128], ub)
            T.ascend_wait_flag("MTE2_V", 0)


@T.prim_func
def scalar_reads_of_the_other_core(A: T.Tensor((64, 64), "float16"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1) as bx:
        x_l1 = T.alloc_l1((64, 64), "float16")
        acc = T.alloc_l0c((64, 64), "float32")
        temp = T.alloc_ub((64, 64), "float32")
        out_ub = T.alloc_ub((64, 64), "float32")
        with T.Cube():
            T.copy(A[0, 0], x_l1)
            T.copy(acc, temp)
            C[0, 0] = temp[0, 0]  # expected-error col 23 {{this statement reads 'temp' (UB), which is on the vector cores (AIV), but it is inside 'with T.Cube()', which runs on the cube core (AIC)}}
        with T.Vector() as sid:
            for i, j in T.Parallel(64, 64):
                out_ub[i, j] = temp[i, j] + T.cast(x_l1[i, j], "float32")  # expected-error col 32 {{this statement reads 'x_l1' (L1), which is on the cube core (AIC), but it is inside 'with T.Vector()', which runs on the vector cores (AIV)}}
            for i in T.Parallel(64):
                x_l1[i, 0] = T.cast(out_ub[i, 0], "float16")  # expected-error col 30 {{this statement writes 'x_l1' (L1), which is on the cube core (AIC), but it is inside 'with T.Vector()', which runs on the vector cores (AIV)}}
            T.copy(out_ub, C[0, 0])


@T.prim_func
def store_before_blocks(C: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((64,), "float32")
        n = T.alloc_var("int32")
        n = 3
        ub[0] = 1.0  # expected-error col 17 {{in a kernel with 'with T.Cube()' / 'with T.Vector()' blocks every tile operation and every store to a buffer belongs to one of them (nothing says which core runs this one)}}
        with T.Vector() as sid:
            ub[1] = T.cast(n, "float32")
            T.copy(ub, C[0])
