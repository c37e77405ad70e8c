# SPEC §2.1: every error of T.annotate_buffer_versions names the buffer and
# points at the offending key or value.
import tilelang.language as T


def kernel(N=1024):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(4) as bx:
            a = T.alloc_shared((256,), "float32")
            b = T.alloc_shared((256,), "float32")
            c = T.alloc_shared((256,), "float32")
            a_half = T.view(a, (256,), "float16")
            b_half = T.view(b, (128,), "float32")
            c_view = T.view(c, (16, 16))
            frag = T.alloc_fragment((256,), "float32")
            v = T.alloc_var("int32")
            T.annotate_buffer_versions({a: (2, "fast")})  # expected-error col 48 {{unknown mode 'fast' for buffer 'a'; expected 'auto', 'iteration' or 'counter'}}
            T.annotate_buffer_versions({a: (2, "counter", 3)})  # expected-error col 44 {{version spec for buffer 'a' must be (num_versions, mode), got a tuple of 3 elements}}
            T.annotate_buffer_versions({a: (2,)})  # expected-error col 44 {{version spec for buffer 'a' must be (num_versions, mode), got a tuple of 1 element}}
            T.annotate_buffer_versions({a: 0})  # expected-error col 44 {{num_versions for buffer 'a' must be a positive integer, got 0}}
            T.annotate_buffer_versions({a: -3})  # expected-error col 44 {{num_versions for buffer 'a' must be a positive integer, got -3}}
            T.annotate_buffer_versions({a: 2.5})  # expected-error col 44 {{num_versions for buffer 'a' must be a positive integer, got 2.5}}
            T.annotate_buffer_versions({a: True})  # expected-error col 44 {{num_versions for buffer 'a' must be a positive integer, got True}}
            T.annotate_buffer_versions({a: ("2", "auto")})  # expected-error col 45 {{num_versions for buffer 'a' must be a positive integer, got '2'}}
            T.annotate_buffer_versions({a: (0, "iteration")})  # expected-error col 45 {{num_versions for buffer 'a' must be a positive integer, got 0}}
            T.annotate_buffer_versions({a: "fast"})  # expected-error col 44 {{unknown mode 'fast' for buffer 'a'; expected 'auto', 'iteration' or 'counter'}}
            T.annotate_buffer_versions({a: (2, 3)})  # expected-error col 48 {{mode for buffer 'a' must be 'auto', 'iteration' or 'counter', got 3}}
            T.annotate_buffer_versions({a: [2, "auto"]})  # expected-error col 44 {{version spec for buffer 'a' must be a count, a mode or (num_versions, mode), got [2, 'auto']}}
            T.annotate_buffer_versions({a: None})  # expected-error col 44 {{version spec for buffer 'a' must be a count, a mode or (num_versions, mode), got None}}
            T.annotate_buffer_versions({A: 2})  # expected-error col 41 {{buffer 'A' in scope 'global' cannot be multi-buffered; only shared, shared.l1, shared.l0a, shared.l0b and shared.l0c buffers have versions}}
            T.annotate_buffer_versions({frag: 2})  # expected-error col 41 {{buffer 'frag' in scope 'local.fragment' cannot be multi-buffered; only shared, shared.l1, shared.l0a, shared.l0b and shared.l0c buffers have versions}}
            T.annotate_buffer_versions({v: 2})  # expected-error col 41 {{buffer 'v' in scope 'local.var' cannot be multi-buffered; only shared, shared.l1, shared.l0a, shared.l0b and shared.l0c buffers have versions}}
            T.annotate_buffer_versions({"a": 2})  # expected-error col 41 {{keys of T.annotate_buffer_versions must be buffers, got 'a'}}
            T.annotate_buffer_versions({a: 2, a_half: 3})  # expected-error col 47 {{buffers 'a' and 'a_half' share one storage but are given different version counts (2 and 3)}}
            T.annotate_buffer_versions({b: (2, "counter"), b_half: (2, "iteration")})  # expected-error col 60 {{buffers 'b' and 'b_half' share one storage but are given different modes ('counter' and 'iteration')}}
            T.annotate_buffer_versions({c: 2, undefined_buffer: 2})  # expected-error col 47 {{name 'undefined_buffer' is not defined}}
            # A count through one alias and a mode through another combine: c is (2, "counter").
            T.annotate_buffer_versions({c_view: "counter", b_half: 2})
            T.annotate_buffer_versions({c: (2, "counter")})
            T.annotate_buffer_versions({b: 3})  # expected-error col 41 {{buffer 'b' is already given 2 versions; give each buffer one version spec}}
            T.annotate_buffer_versions({b: "iteration"})  # expected-error col 41 {{buffer 'b' is already given 'counter' versions; give each buffer one version spec}}
            T.annotate_buffer_versions({c_view: 3})  # expected-error col 41 {{buffers 'c' and 'c_view' share one storage but are given different version counts (2 and 3)}}
            T.annotate_buffer_versions(a, 2)  # expected-error col 13 {{T.annotate_buffer_versions takes one dict: {buffer: versions, ...}}}
            T.annotate_buffer_versions({a: 2}, mode="auto")  # expected-error col 48 {{unknown keyword argument 'mode' to T.annotate_buffer_versions; it takes no keyword arguments}}
            for i in T.Pipelined(4, num_stages=2):
                T.copy(A[i * 256], a)
                T.copy(a, B[i * 256])

    return main
