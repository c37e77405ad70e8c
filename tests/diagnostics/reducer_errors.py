# T.alloc_reducer / T.finalize_reducer: the op and replication words, and the
# reducer finalize_reducer needs. dict methods in factory code.
import tilelang.language as T



def make(N=256):
    table = {4: 10, 8: 20}
    assert table.get(8, 0) == 20
    assert table.get(16, 0) == 0
    assert table.get(16) is None
    assert list(table.keys()) == [4, 8]
    assert list(table.values()) == [10, 20]
    assert list(table.items())[1] == (8, 20)
    width = table.get()

    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((N,), "float32")
            frag = T.alloc_fragment((1,), "float32")
            bad = T.alloc_shared((width,), "float32")  # expected-error col 35 {{'width' could not be evaluated at compile time: get takes a key and an optional default: d.get(key, default)}}
            T.copy(A, a)
            with T.SimtVF(threads=32):
                r = T.alloc_reducer((1,), "float32", op="prod")  # expected-error col 57 {{T.alloc_reducer op= must be one of "max", "min", "sum", got 'prod'}}
                q = T.alloc_reducer((1,), "float32", replication="some")  # expected-error col 66 {{T.alloc_reducer replication= must be one of "all", "none", got 'some'}}
                s = T.alloc_reducer((1,), "float32", scope="local")  # expected-error col 54 {{unknown keyword argument 'scope' to T.alloc_reducer; accepted: dtype, op, replication, shape}}
                ok = T.alloc_reducer((1,), "float32", op="min", replication="none")
                T.fill(ok, T.infinity("float32"))
                for i in T.Parallel(256):
                    ok[0] = T.min(ok[0], a[i])
                T.finalize_reducer(ok)
                T.finalize_reducer(frag)  # expected-error col 36 {{T.finalize_reducer needs a buffer made by T.alloc_reducer, got buffer 'frag'}}
                T.finalize_reducer(ok, ok)  # expected-error col 17 {{T.finalize_reducer takes one reducer (2 given)}}

    return main
