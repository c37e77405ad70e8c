# Loop forms and their annotations (SPEC §1.4).
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32"), n: T.int32):
    with T.Kernel(4) as bx:
        a = T.alloc_shared((256,), "float32")
        frag = T.alloc_fragment((256,), "float32")
        for i in T.serial(4, annotations={"enable_offset": True}):
            T.copy(A[i * 256], a)
        for i in T.Pipelined(0, 8, num_stages=3, annotations={"multi_buffer_eligible": [a], "enable_offset": False}):
            T.copy(A[i * 128], a)
        for i in T.serial(8, annotations={"num_stages": 2}):
            T.copy(A[i * 128], a)
        for i in T.serial(0, 8, 0):  # expected-error col 18 {{loop step must not be zero}}
            pass
        for i in T.serial(0.5):  # expected-error col 18 {{loop bounds must be integers}}
            pass
        for i in T.serial():  # expected-error col 18 {{T.serial takes 1 to 3 arguments (extent, or start, stop[, step])}}
            pass
        for i in T.serial(1, 2, 3, 4):  # expected-error col 18 {{T.serial takes 1 to 3 arguments (extent, or start, stop[, step])}}
            pass
        for i in T.Pipelined(4, num_stages=-1):  # expected-error col 44 {{num_stages must be >= 0, got -1}}
            pass
        for i in T.Pipelined(4, num_stages=n):  # expected-error col 44 {{num_stages must be a compile-time integer, got a run-time value}}
            pass
        for i in T.Pipelined(4, annotations={"enable_offset": 1}):  # expected-error col 45 {{"enable_offset" must be True or False}}
            pass
        for i in T.Pipelined(4, annotations={"multi_buffer_eligible": [frag]}):  # expected-error col 45 {{buffer 'frag' in scope 'local.fragment' cannot be multi-buffered; only shared, shared.l1, shared.l0a, shared.l0b and shared.l0c buffers have versions}}
            pass
        for i in T.Pipelined(4, annotations={"multi_buffer_eligible": [3]}):  # expected-error col 45 {{"multi_buffer_eligible" must list buffers, got int}}
            pass
        for i in T.Pipelined(4, annotations={"speed": "fast"}):  # expected-warning col 45 {{unknown loop annotation 'speed' is ignored; known: num_stages, enable_offset, multi_buffer_eligible}}
            pass
        for i in T.Pipelined(4, annotations=[1]):  # expected-error col 45 {{annotations must be a dict: annotations={"enable_offset": True}}}
            pass
        for i in T.Pipelined(4, annotations={1: 2}):  # expected-error col 45 {{annotation keys must be strings}}
            pass
        for i in T.Pipelined(4, annotations={"num_stages": -2}):  # expected-error col 45 {{num_stages must be >= 0, got -2}}
            pass
        for i in T.Pipelined(4, stages=2):  # expected-error col 33 {{unknown keyword argument 'stages' to T.Pipelined; accepted: num_stages, annotations, order, stage, group}}
            pass
        for i in T.unroll(4, annotations={}):  # expected-error col 30 {{unknown keyword argument 'annotations' to T.unroll; accepted: explicit, unroll_factor}}
            pass
        for i in T.Unroll(4, explicit=True):
            pass
        for i in T.Unroll(4, step=2):  # expected-error col 30 {{unknown keyword argument 'step' to T.Unroll; accepted: explicit, unroll_factor}}
            pass
        for i, j in T.serial(4):  # expected-error col 13 {{the loop variable must be a plain name}}
            pass
        for i in T.Parallel(4, 4):  # expected-error col 13 {{T.Parallel has 2 extents but the loop binds 1 name}}
            pass
        for i, j in T.Parallel(4):  # expected-error col 13 {{T.Parallel has 1 extent but the loop binds 2 names}}
            pass
        for i in T.Parallel(0):  # expected-error col 18 {{T.Parallel extent must be positive, got 0}}
            pass
        for i in T.Parallel(n):  # expected-error col 18 {{T.Parallel extent must be a compile-time integer, got a run-time value}}
            pass
        for i in T.Parallel(256):
            for j in T.Parallel(2):  # expected-error col 13 {{a nested T.Parallel is not allowed inside a T.Parallel loop}}
                pass
            for k in T.serial(n):  # expected-error col 31 {{a loop inside a T.Parallel loop is unrolled, so its bounds must be compile-time integers; got a run-time value}}
                pass
            for k in T.serial(2000):  # expected-error col 22 {{a loop inside a T.Parallel loop is unrolled; 2000 copies of its body (more than 1024) are not supported yet}}
                pass
            for k in T.serial(64):
                for m in T.serial(32):  # expected-error col 26 {{a loop inside a T.Parallel loop is unrolled; 2048 copies of its body (more than 1024) are not supported yet}}
                    pass
            for k in T.serial(0, 2, 9223372036854775807):
                a[i] = a[i] / (k / 2)  # expected-error col 32 {{'/' on integers is true division; use '//' for integer division}}
            for k in T.Pipelined(2):  # expected-error col 13 {{a loop is not allowed inside a T.Parallel loop}}
                pass
            T.copy(A[0:256], a)  # expected-error col 13 {{T.copy is not allowed inside a T.Parallel loop}}
        for i in T.Kernel(4):  # expected-error col 18 {{T.Kernel is not a loop; use T.serial, T.Pipelined, T.Parallel, T.Persistent, T.unroll or range}}
            pass
        for i in A:  # expected-error col 18 {{a kernel loop must iterate over T.serial, T.Pipelined, T.Parallel, T.Persistent, T.unroll or range}}
            pass
        for i in n:  # expected-error col 18 {{a kernel loop must iterate over T.serial, T.Pipelined, T.Parallel, T.Persistent, T.unroll or range}}
            pass
        for i in [1, 2]:
            a[i] = 0.0
        for t in T.Persistent([4, 4], 3, bx, num_stages=2):
            pass
        for t in T.Persistent(4, 2):  # expected-error col 18 {{T.Persistent in a for loop takes (domain, wave_size, index); use 'with T.Persistent(extent, num_stages=k) as i:' for the short form}}
            pass
        for t in T.Persistent([4, 0], 2, bx):  # expected-error col 31 {{T.Persistent domain sizes must be positive, got 0}}
            pass
        for t in T.Persistent([4], 0, bx):  # expected-error col 36 {{wave_size must be positive}}
            pass
        for tm, tn, tk in T.Persistent([4, 4], 2, bx):  # expected-error col 13 {{T.Persistent domain has 2 dimensions but the loop binds 3 names}}
            pass
        for t in T.Persistent([4], 2, bx, wave=2):  # expected-error col 43 {{unknown keyword argument 'wave' to T.Persistent; accepted: group_size, num_stages, annotations}}
            pass
        for t in T.Persistent([n], 2, bx):  # expected-error col 31 {{T.Persistent domain must be a compile-time integer, got a run-time value}}
            pass
        with T.Persistent(4, 2) as t:  # expected-error col 14 {{'with T.Persistent(...)' takes one extent; use 'for t in T.Persistent(domain, wave_size, index)' for the tile form}}
            pass
        with T.Persistent(4):  # expected-error col 14 {{'with T.Persistent(extent) as i:' needs a loop variable}}
            pass
        with T.Persistent(4.0) as t:  # expected-error col 27 {{loop extent must be an integer}}
            pass
        with T.Persistent(4, group_size=8) as t:  # expected-error col 30 {{unknown keyword argument 'group_size' to T.Persistent; accepted: num_stages, annotations}}
            pass
        for i in T.serial(4), T.serial(2):  # expected-error col 18 {{T.serial(...) can only be the iterable of a 'for' loop}}
            pass
