# SPEC §2.4 (revised): any loop can own (here a T.serial loop), a one-trip
# loop is transparent, writes under complementary guards are write-first, a
# whole-buffer fill outside every loop does not block inference, and a count
# and a mode given through two aliases combine. Only the storages that stay
# ineligible warn, because their fixed counts never apply.
import tilelang.language as T


def kernel(N=4096):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(4) as bx:
            x = T.alloc_shared((256,), "float32")
            y = T.alloc_shared((256,), "float32")
            y_view = T.view(y, (16, 16))
            z = T.alloc_shared((256,), "float32")
            p = T.alloc_shared((256,), "float32")
            acc = T.alloc_shared((256,), "float32")
            T.annotate_buffer_versions({x: 2, y: 2, y_view: "counter", z: 3, p: 2, acc: 2})  # expected-warning col 78 {{'p' asks for 2 versions but is not multi-buffer eligible (it is accessed outside every loop (line 22), where only a T.fill or T.clear of the whole buffer may be); it keeps one version}}
            # expected-warning@-1 col 84 {{'acc' asks for 2 versions but is not multi-buffer eligible (it is read before it is written in an iteration of loop 'i' (line 23) (read at line 33)); it keeps one version}}
            T.clear(z)
            T.fill(p[0:128], 0.0)
            for i in T.serial(4):
                for one in T.serial(1):
                    T.copy(A[bx * 1024 + i * 256], x)
                if i % 2 == 0:
                    T.copy(A[bx * 1024 + i * 256], y)
                else:
                    T.fill(y, 1.0)
                T.copy(A[bx * 1024 + i * 256], z)
                T.copy(A[bx * 1024 + i * 256], p)
                for j in T.Parallel(256):
                    acc[j] = acc[j] + x[j] + y[j] + z[j] + p[j]
                T.copy(acc, B[bx * 1024 + i * 256])

    return main
