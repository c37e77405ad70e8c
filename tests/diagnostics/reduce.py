# Reductions: dst has src's shape without dim (one element for a 1-D src).
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 256), "float32")):
    with T.Kernel(1) as bx:
        x = T.alloc_shared((4, 256), "float32")
        row = T.alloc_shared((4,), "float32")
        col = T.alloc_shared((256,), "float32")
        one = T.alloc_shared((1,), "float32")
        i32 = T.alloc_shared((4,), "int32")
        l1 = T.alloc_l1((4, 256), "float32")
        T.reduce_sum(x, row, dim=1)
        T.reduce_max(x, row, dim=-1)
        T.reduce_min(x, col, dim=0)
        T.reduce_abssum(x, row, 1, clear=False)
        T.reduce_absmax(col, one)
        T.reduce_sum(x, col, dim=1)  # expected-error col 25 {{T.reduce_sum over dim 1 of (4, 256) gives (4,), but the destination 'col' is (256,)}}
        T.reduce_sum(x, row, dim=0)  # expected-error col 25 {{T.reduce_sum over dim 0 of (4, 256) gives (256,), but the destination 'row' is (4,)}}
        T.reduce_sum(x, row, dim=2)  # expected-error col 34 {{dim 2 is out of range for the rank-2 source 'x'; use -2..1}}
        T.reduce_sum(x, row, dim=-3)  # expected-error col 34 {{dim -3 is out of range for the rank-2 source 'x'; use -2..1}}
        T.reduce_sum(x, row, dim=1, clear=1)  # expected-error col 43 {{clear must be True or False}}
        T.reduce_sum(x, i32, dim=1)  # expected-error col 9 {{T.reduce_sum destination 'i32' must be a float buffer}}
        T.reduce_sum(l1, row, dim=1)  # expected-error col 9 {{T.reduce_sum works on shared or local buffers; 'l1' is in shared.l1}}
        T.reduce_sum(A, row, dim=1)  # expected-error col 9 {{T.reduce_sum works on shared or local buffers; 'A' is in global}}
        T.reduce_sum(x)  # expected-error col 9 {{T.reduce_sum takes (src, dst, dim=-1, clear=True)}}
        T.reduce_sum(x, row, dim=1, keepdim=True)  # expected-error col 37 {{unknown keyword argument 'keepdim' to T.reduce_sum; accepted: dim, clear}}
        T.reduce_sum(x, row, dim=bx)  # expected-error col 34 {{dim must be a compile-time integer, got a run-time value}}
