# SPEC §2.3: only the capacity-checked scopes can be unlimited.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((1024,), "float32")
        T.annotate_unlimit_memory("shared", "shared.l1", "shared.l0a", "shared.l0b", "shared.l0c")
        T.annotate_unlimit_memory("ub")  # expected-error col 35 {{invalid scope 'ub' for T.annotate_unlimit_memory; valid scopes: "shared", "shared.l1", "shared.l0c", "shared.l0a", "shared.l0b"}}
        T.annotate_unlimit_memory("global")  # expected-error col 35 {{invalid scope 'global' for T.annotate_unlimit_memory; valid scopes: "shared", "shared.l1", "shared.l0c", "shared.l0a", "shared.l0b"}}
        T.annotate_unlimit_memory("local.fragment")  # expected-error col 35 {{invalid scope 'local.fragment' for T.annotate_unlimit_memory; valid scopes: "shared", "shared.l1", "shared.l0c", "shared.l0a", "shared.l0b"}}
        T.annotate_unlimit_memory("shared", 3)  # expected-error col 45 {{invalid scope 3 for T.annotate_unlimit_memory; valid scopes: "shared", "shared.l1", "shared.l0c", "shared.l0a", "shared.l0b"}}
        T.annotate_unlimit_memory()  # expected-error col 9 {{T.annotate_unlimit_memory needs at least one scope, e.g. "shared"}}
        T.annotate_unlimit_memory(scope="shared")  # expected-error col 35 {{unknown keyword argument 'scope' to T.annotate_unlimit_memory; it takes no keyword arguments}}
        T.copy(A, a)
