# A macro returns only as its last statement; outside a kernel it cannot run.
import tilelang.language as T


@T.macro
def early(buf):
    if buf[0] > 0.0:
        pass
    return buf[0]  # fine: the last statement


@T.macro
def twice(buf):
    return buf[0]  # expected-error col 5 {{macro 'twice' may return only as its last statement}}
    buf[0] = 1.0


X = early(3)  # module code: the name stays unknown; no kernel uses it


def k(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((N,), "float32")
            T.copy(A, a)
            v = early(a)
            w = twice(a)  # expected-note col 17 {{in macro 'twice' inlined here}}

    return main
