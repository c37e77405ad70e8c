# T.alloc_shared(..., scope=...): anything but an on-chip scope is an error at
# the scope (issue 17 §3); the other allocations may only repeat their own.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((64,), "float32", scope="shared.l1")
        b = T.alloc_shared((64,), "float32", scope="shared")
        u = T.alloc_shared((64,), "float32", scope="shared.dyn")
        c = T.alloc_shared((16, 16), "float32", scope="shared.l0c")
        f = T.alloc_fragment((8,), "float32", scope="local.fragment")
        g = T.alloc_shared((64,), "float32", scope="local.fragment")  # expected-error col 52 {{T.alloc_shared scope= must be an on-chip memory: "shared" (or "shared.dyn"), "shared.l1", "shared.l0a", "shared.l0b" or "shared.l0c"; got 'local.fragment'}}
        h = T.alloc_shared((64,), "float32", scope="bogus")  # expected-error col 52 {{T.alloc_shared scope= must be an on-chip memory: "shared" (or "shared.dyn"), "shared.l1", "shared.l0a", "shared.l0b" or "shared.l0c"; got 'bogus'}}
        i = T.alloc_l1((64,), "float32", scope="shared")  # expected-error col 48 {{T.alloc_l1 allocates in "shared.l1"; scope= may only repeat it, got 'shared'}}
        j = T.alloc_shared((64,), "float32", scope=3)  # expected-error col 52 {{T.alloc_shared scope= must be an on-chip memory: "shared" (or "shared.dyn"), "shared.l1", "shared.l0a", "shared.l0b" or "shared.l0c"; got 3}}
        T.copy(A[0:64], b)
        T.copy(b, B[0:64])
