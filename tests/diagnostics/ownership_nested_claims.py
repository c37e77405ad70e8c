# SPEC §2.4: owners never nest, so explicit multi_buffer_eligible claims of
# one storage on nested loops are an error that names the buffer and both
# loops (once per storage). Claims on sibling loops are fine.
import tilelang.language as T


def kernel(N=4096):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(4) as bx:
            a = T.alloc_shared((256,), "float32")
            a_view = T.view(a, (16, 16))
            b = T.alloc_shared((256,), "float32")
            for i in T.Pipelined(2, num_stages=2, annotations={"multi_buffer_eligible": [a, b]}):
                for k in T.serial(2, annotations={"multi_buffer_eligible": [a_view]}):  # expected-error col 50 {{'a_view' is claimed by nested loops 'i' (line 14) and 'k' (line 15); owners cannot nest, so name it in the multi_buffer_eligible claim of only one of them}}
                    for m in T.serial(2, annotations={"multi_buffer_eligible": [a]}):
                        T.copy(A[bx * 1024 + i * 512 + k * 256], a)
                        T.copy(a, B[bx * 1024 + i * 512 + k * 256])
                T.copy(A[bx * 1024 + i * 512], b)
                T.copy(b, B[bx * 1024 + i * 512])
            for t in T.serial(2, annotations={"multi_buffer_eligible": [b]}):
                T.copy(A[bx * 1024 + t * 256], b)
                T.copy(b, B[bx * 1024 + t * 256])

    return main
