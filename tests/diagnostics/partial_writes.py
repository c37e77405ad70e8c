# SPEC §2.4: a write the ownership analysis counts as initialising a buffer,
# but that may cover only part of it in some iteration, is warned about once
# the buffer gets several versions (the rest of the version would hold another
# iteration's data than the sequential program reads there).
import tilelang.language as T


# A tail: the last tile of A runs past its end (3000 elements) and is clipped.
def clipped_tail(N=3000, sub=1024):
    ns = (N + sub - 1) // sub

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), C: T.Tensor((ns * sub,), "float32")):
        with T.Kernel(1) as bx:
            a_ub = T.alloc_ub((sub,), "float32")
            c_ub = T.alloc_ub((sub,), "float32")
            for s in T.Pipelined(ns, num_stages=2):
                T.copy(A[s * sub : s * sub + sub], a_ub)  # expected-warning col 17 {{'a_ub' gets 2 versions, but this copy of 'A' (shape (3000,)) runs past the end of the tensor in some iteration (dimension 0 up to 3072) and is clipped there, so it writes only part of 'a_ub': the rest of the version keeps the data of another iteration than the sequential program reads there; pass pad_value= to fill the rest, or keep one version with {a_ub: 1}}}
                for i in T.Parallel(sub):
                    c_ub[i] = a_ub[i] * 2.0
                T.copy(c_ub, C[s * sub : s * sub + sub])

    return main


# The same tail with pad_value=, with a named offset, and a full-size tensor:
# nothing to say.
def padded_tail(N=3000, sub=1024):
    ns = (N + sub - 1) // sub

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((ns * sub,), "float32"), C: T.Tensor((ns * sub,), "float32")):
        with T.Kernel(1) as bx:
            a_ub = T.alloc_ub((sub,), "float32")
            b_ub = T.alloc_ub((sub,), "float32")
            c_ub = T.alloc_ub((sub,), "float32")
            for s in T.Pipelined(ns, num_stages=2):
                off = s * sub
                T.copy(A[off : off + sub], a_ub, pad_value=0.0)
                T.copy(B[off : off + sub], b_ub)
                for i in T.Parallel(sub):
                    c_ub[i] = a_ub[i] + b_ub[i]
                T.copy(c_ub, C[off : off + sub])

    return main


# A fill covers the buffer first: the clipped copy after it overwrites part of
# this iteration's bytes, nothing older.
def filled_first(N=3000, sub=1024):
    ns = (N + sub - 1) // sub

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), C: T.Tensor((ns * sub,), "float32")):
        with T.Kernel(1) as bx:
            a_ub = T.alloc_ub((sub,), "float32")
            for s in T.Pipelined(ns, num_stages=2):
                T.fill(a_ub, 0.0)
                T.copy(A[s * sub : s * sub + sub], a_ub)
                T.copy(a_ub, C[s * sub : s * sub + sub])

    return main


# Stores in a loop whose trip count is a run-time value (a loop that may not
# run never counts as writing first, so only a trusted claim makes it an owner).
def runtime_trips():
    @T.prim_func
    def main(Nn: T.Tensor((4,), "int32"), C: T.Tensor((256,), "float32")):
        with T.Kernel(1) as bx:
            a_ub = T.alloc_ub((64,), "float32")
            for s in T.Pipelined(4, num_stages=2, annotations={"multi_buffer_eligible": [a_ub]}):  # expected-warning col 63 {{the multi_buffer_eligible claim of 'a_ub' is trusted, but the loop reads it before writing it in an iteration (line 75): with several versions that read sees another version than the one written before the loop; {a_ub: 1} opts it out}}
                for j in T.serial(Nn[s]):
                    a_ub[j] = T.cast(j, "float32")  # expected-warning col 31 {{'a_ub' gets 2 versions, but it is written in loop 'j' (line 73), whose trip count is only known at run time, so an iteration may write only part of it: the rest of the version keeps the data of another iteration than the sequential program reads there; write all of it, or keep one version with {a_ub: 1}}}
                T.copy(a_ub, C[s * 64 : s * 64 + 64])

    return main


# One version: the sequential program; nothing to say.
def one_version(N=3000, sub=1024):
    ns = (N + sub - 1) // sub

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), C: T.Tensor((ns * sub,), "float32")):
        with T.Kernel(1) as bx:
            a_ub = T.alloc_ub((sub,), "float32")
            T.annotate_buffer_versions({a_ub: (1, "auto")})
            for s in T.Pipelined(ns, num_stages=2):
                T.copy(A[s * sub : s * sub + sub], a_ub)
                T.copy(a_ub, C[s * sub : s * sub + sub])

    return main


# A guarded tail: the copy that would run past the end never runs (the guard
# excludes those rows); nothing to say.
def guarded_tail(M=30, rows=8):
    blocks = (M + rows - 1) // rows

    @T.prim_func
    def main(A: T.Tensor((M, 64), "float32"), C: T.Tensor((M, 64), "float32")):
        with T.Kernel(1) as bx:
            a_ub = T.alloc_ub((rows, 64), "float32")
            for t in T.Pipelined(blocks, num_stages=2):
                row = t * rows
                if row + rows <= M:
                    T.copy(A[row : row + rows, :], a_ub)
                    T.copy(a_ub, C[row : row + rows, :])

    return main
