# SPEC §2.2: T.annotate_manual_multi_buffer items are buffers (ring size =
# leading dimension) or {buffer: N} with N >= 1.
import tilelang.language as T


def kernel(N=1024):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), D: T.Tensor((T.dynamic("n"), 4), "float32")):
        with T.Kernel(4) as bx:
            ring = T.alloc_shared((2, 256), "float32")
            flat = T.alloc_shared((768,), "float32")
            other = T.alloc_shared((256,), "float32")
            versioned = T.alloc_shared((256,), "float32")
            frag = T.alloc_fragment((256,), "float32")
            T.annotate_buffer_versions({versioned: 2})
            T.annotate_manual_multi_buffer({flat: 0})  # expected-error col 51 {{ring size for buffer 'flat' must be an integer >= 1, got 0}}
            T.annotate_manual_multi_buffer({flat: -1})  # expected-error col 51 {{ring size for buffer 'flat' must be an integer >= 1, got -1}}
            T.annotate_manual_multi_buffer({flat: 1.5})  # expected-error col 51 {{ring size for buffer 'flat' must be an integer >= 1, got 1.5}}
            T.annotate_manual_multi_buffer({flat: "3"})  # expected-error col 51 {{ring size for buffer 'flat' must be an integer >= 1, got '3'}}
            T.annotate_manual_multi_buffer({flat: 3}, {flat: 4})  # expected-error col 56 {{buffer 'flat' is declared manual twice with different ring sizes (3 and 4)}}
            T.annotate_manual_multi_buffer(D)  # expected-error col 44 {{buffer 'D' in scope 'global' cannot be a manual multi-buffer; use a shared, shared.l1, shared.l0a, shared.l0b or shared.l0c buffer}}
            T.annotate_manual_multi_buffer(A)  # expected-error col 44 {{buffer 'A' in scope 'global' cannot be a manual multi-buffer; use a shared, shared.l1, shared.l0a, shared.l0b or shared.l0c buffer}}
            T.annotate_manual_multi_buffer(frag)  # expected-error col 44 {{buffer 'frag' in scope 'local.fragment' cannot be a manual multi-buffer; use a shared, shared.l1, shared.l0a, shared.l0b or shared.l0c buffer}}
            T.annotate_manual_multi_buffer(versioned)  # expected-error col 44 {{buffer 'versioned' is already given versions by T.annotate_buffer_versions; a manual multi-buffer is never auto-versioned}}
            T.annotate_manual_multi_buffer(2)  # expected-error col 44 {{T.annotate_manual_multi_buffer takes buffers or {buffer: N}, got 2}}
            T.annotate_manual_multi_buffer({2: 2})  # expected-error col 45 {{T.annotate_manual_multi_buffer takes buffers or {buffer: N}, got 2}}
            T.annotate_manual_multi_buffer()  # expected-error col 13 {{T.annotate_manual_multi_buffer needs at least one buffer or {buffer: N}}}
            T.annotate_manual_multi_buffer(ring, ring_size=2)  # expected-error col 50 {{unknown keyword argument 'ring_size' to T.annotate_manual_multi_buffer; it takes no keyword arguments}}
            T.annotate_manual_multi_buffer(ring, {other: 1})
            T.annotate_buffer_versions({ring: 2})  # expected-error col 41 {{buffer 'ring' is already declared manually multi-buffered with T.annotate_manual_multi_buffer}}
            for i in T.Pipelined(4, num_stages=2):
                T.copy(A[i * 256], ring[i % 2, :])

    return main
