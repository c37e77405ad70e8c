# T.alloc_shared(..., scope=...) is honoured for every on-chip scope (issue 17
# §3); anything else is an error at the scope.
# CHECK: a = T.alloc_l1((64,), "float32")
# CHECK: b = T.alloc_shared((64,), "float32")
# CHECK: u = T.alloc_shared((64,), "float32")
# CHECK: c = T.alloc_l0c((16, 16), "float32")
# CHECK: f = T.alloc_fragment((8,), "float32")
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((64,), "float32", scope="shared.l1")
        b = T.alloc_shared((64,), "float32", scope="shared")
        u = T.alloc_shared((64,), "float32", scope="shared.dyn")
        c = T.alloc_shared((16, 16), "float32", scope="shared.l0c")
        f = T.alloc_fragment((8,), "float32", scope="local.fragment")
        T.copy(A[0:64], b)
        T.copy(b, B[0:64])
