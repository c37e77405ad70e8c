# SPEC §2.1, §2.2, §2.4: the eligibility warnings of the ownership analysis,
# each printed once per storage with the buffer's name and location.
import tilelang.language as T


def kernel(N=4096):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(4) as bx:
            ring = T.alloc_shared((2, 256), "float32")
            out = T.alloc_shared((256,), "float32")
            acc = T.alloc_shared((256,), "float32")
            carried = T.alloc_shared((256,), "float32")
            T.annotate_manual_multi_buffer(ring)
            T.annotate_buffer_versions({out: 1, carried: 3})  # expected-warning col 49 {{'carried' asks for 3 versions but is not multi-buffer eligible (it is read before it is written in an iteration of loop 'i' (line 17) (read at line 21)); it keeps one version}}
            T.clear(acc)
            for i in T.Pipelined(4, num_stages=2, annotations={"multi_buffer_eligible": [ring, out]}):  # expected-warning col 63 {{'ring' is a manual multi-buffer (T.annotate_manual_multi_buffer), so its multi_buffer_eligible claim is dropped; its versions are the ones written in its indices}}
                # expected-warning@-1 col 63 {{{out: 1} opts 'out' out of multi-buffering and overrides its multi_buffer_eligible claim; use {out: (1, "auto")} to keep it eligible with one version}}
                T.copy(A[bx * 1024 + i * 256], ring[i % 2, :])
                for j in T.Parallel(256):
                    out[j] = ring[i % 2, j] + carried[j]
                    carried[j] = out[j]
                T.copy(out, B[bx * 1024 + i * 256])
    return main


# A claimed owner loop that reads its storage before writing it in an
# iteration: the claim is trusted, with a warning (each version would hold a
# different iteration's data, not what the first loop left).
def live_in_claim(N=512):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            ub = T.alloc_shared((64,), "float32")
            for i in T.Pipelined(2, num_stages=2, annotations={"multi_buffer_eligible": [ub]}):
                T.copy(A[i * 64], ub)
                T.copy(ub, C[i * 64])
            for j in T.Pipelined(2, num_stages=2, annotations={"multi_buffer_eligible": [ub]}):  # expected-warning col 63 {{the multi_buffer_eligible claim of 'ub' is trusted, but the loop reads it before writing it in an iteration (line 39): with several versions that read sees another version than the one written before the loop; {ub: 1} opts it out}}
                T.copy(ub, C[256 + j * 64])
    return main


# A fixed count on a buffer whose only loop has one trip is never silently
# dropped (issue 17 §2, upstream test_ascend_multibuffer_counter).
def one_trip_count():
    @T.prim_func
    def main(A: T.Tensor((1024,), "float32"), C: T.Tensor((1024,), "float32")):
        with T.Kernel(1) as bx:
            ub = T.alloc_shared((1024,), "float32")
            T.annotate_buffer_versions({ub: 3})  # expected-warning col 41 {{'ub' asks for 3 versions but is not multi-buffer eligible (its only loop 's' (line 51) has one trip, so no iteration follows to overlap with); it keeps one version}}
            for s in T.Pipelined(1, num_stages=3):
                T.copy(A, ub)
                T.copy(ub, C)

    return main
