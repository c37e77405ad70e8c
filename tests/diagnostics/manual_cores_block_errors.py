# The manual form of a mixed kernel: 'with T.Cube():' and
# 'with T.Vector() as sid:' blocks directly in a 'with T.Kernel(n)' body.
# A block nested in another block or in a VF region, a block in a
# T.MixedKernel, arguments T.Cube() does not take, a T.Vector vector= other
# than 1 or 2, and T.Vector blocks of one kernel asking for different vector
# counts are errors at the block; the block is then skipped.
import tilelang.language as T


@T.prim_func
def cube_in_vector(A: T.Tensor((128, 128), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((64, 128), "float32")
        with T.Vector() as sid:
            T.copy(A[sid * 64, 0], ub)
            with T.Cube():  # expected-error col 18 {{'with T.Cube()' cannot be nested inside 'with T.Vector()'}}
                pass


@T.prim_func
def vector_in_cube(A: T.Tensor((128, 128), "float32")):
    with T.Kernel(1) as bx:
        l1 = T.alloc_l1((128, 128), "float32")
        with T.Cube():
            T.copy(A[0, 0], l1)
            with T.Vector() as sid:  # expected-error col 18 {{'with T.Vector()' cannot be nested inside 'with T.Cube()'}}
                pass


@T.prim_func
def in_vf_region(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        with T.Vector():
            T.copy(A[0:128], ub)
            with T.SimdVF():
                with T.Cube():  # expected-error col 22 {{'with T.Cube()' cannot be inside a VF region}}
                    pass


@T.prim_func
def vector_in_vf_region(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        with T.SimdVF():
            with T.Vector() as sid:  # expected-error col 18 {{'with T.Vector()' cannot be inside a VF region}}
                pass


@T.prim_func
def in_parallel(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        with T.Vector() as sid:
            T.copy(A[0:128], ub)
            for i in T.Parallel(128):
                with T.Vector():  # expected-error col 22 {{'with T.Vector()' is not allowed inside a T.Parallel loop}}
                    ub[i] = 1.0


@T.prim_func
def mixed_kernel_cube(A: T.Tensor((128,), "float32")):
    with T.MixedKernel(1, sids=1) as (bx, sid):
        ub = T.alloc_ub((128,), "float32")
        with T.Cube():  # expected-error col 14 {{'with T.Cube()' is the manual form, which T.MixedKernel does not support (it is not supported in manual mode upstream either); launch with 'with T.Kernel(n) as bx:'}}
            pass
        T.copy(A[0:128], ub)


@T.prim_func
def mixed_kernel_vector(A: T.Tensor((128,), "float32")):
    with T.MixedKernel(1, sids=1) as (bx, sid):
        ub = T.alloc_ub((128,), "float32")
        with T.Vector():  # expected-error col 14 {{'with T.Vector()' is the manual form, which T.MixedKernel does not support (it is not supported in manual mode upstream either); launch with 'with T.Kernel(n) as bx:'}}
            T.copy(A[0:128], ub)


@T.prim_func
def cube_arguments(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        l1 = T.alloc_l1((128,), "float32")
        with T.Cube(2):  # expected-error col 14 {{T.Cube() takes no arguments}}
            pass
        with T.Cube() as c:  # expected-error col 26 {{'with T.Cube()' binds no name; drop 'as'}}
            pass
        with T.Cube(vector=2):  # expected-error col 21 {{unknown keyword argument 'vector' to T.Cube; it takes no keyword arguments}}
            pass
        with T.Cube():
            T.copy(A[0:128], l1)


@T.prim_func
def vector_arguments(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        with T.Vector(vector=3) as sid:  # expected-error col 30 {{T.Vector takes vector=1 or vector=2 (the AIVs that run the block), got 3}}
            pass
        with T.Vector(0):  # expected-error col 23 {{T.Vector takes vector=1 or vector=2 (the AIVs that run the block), got 0}}
            pass
        with T.Vector(vector=1.5):  # expected-error col 30 {{vector must be a compile-time integer, got float}}
            pass
        with T.Vector(1, 2):  # expected-error col 14 {{T.Vector takes one argument, vector=1 or 2}}
            pass
        with T.Vector(2, vector=2):  # expected-error col 26 {{T.Vector got vector both by position and as vector=}}
            pass
        with T.Vector(vectors=2):  # expected-error col 23 {{unknown keyword argument 'vectors' to T.Vector; accepted: vector}}
            pass
        with T.Vector() as (s0, s1):  # expected-error col 28 {{'with T.Vector() as sid:' binds one name, the vector sub-core index}}
            pass
        with T.Vector() as sid:
            T.copy(A[0:128], ub)


# Every T.Vector block of a kernel runs on the same AIVs; T.Vector() is
# vector=2. A T.Cube block in between does not change the count.
@T.prim_func
def vector_counts(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        l1 = T.alloc_l1((128,), "float32")
        with T.Vector(vector=1) as sid:
            T.copy(A[0:128], ub)
        with T.Cube():
            T.copy(A[0:128], l1)
        with T.Vector() as sid:  # expected-error col 14 {{every T.Vector block of a kernel runs on the same AIVs, but this one asks for vector=2 and an earlier one for vector=1}}
            T.copy(A[0:128], ub)
        with T.Vector(1) as sid:
            T.copy(A[0:128], ub)


@T.prim_func
def vector_counts_two_first(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        with T.Vector(vector=2) as sid:
            T.copy(A[0:128], ub)
        with T.Vector(vector=1) as sid:  # expected-error col 14 {{every T.Vector block of a kernel runs on the same AIVs, but this one asks for vector=1 and an earlier one for vector=2}}
            T.copy(A[0:128], ub)


# 'with T.Cube:' names the function without calling it.
@T.prim_func
def not_called(A: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((128,), "float32")
        with T.Cube:  # expected-error col 14 {{'with T.Cube:' names T.Cube without calling it; write 'with T.Cube():'}}
            T.clear(ub)
