# Factory code runs at compile time: a failing assert or a reached raise is a
# compile error carrying its message, f-strings included.
import tilelang.language as T


def assert_with_message(N=1000, block=64):
    assert N % block == 0, f"N={N} must be a multiple of block={block}"  # expected-error col 5 {{assertion failed: N=1000 must be a multiple of block=64}}

    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((block,), "float32")

    return main


def assert_without_message(N=3):
    assert N > 4  # expected-error col 5 {{assertion failed}}

    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((N,), "float32")

    return main


def raise_fstring(dtype="float64"):
    if dtype not in ("float16", "float32"):
        raise ValueError(f"unsupported dtype {dtype!r}; use float16 or float32")  # expected-error col 9 {{ValueError: unsupported dtype 'float64'; use float16 or float32}}

    @T.prim_func
    def main(A: T.Tensor((16,), dtype)):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((16,), dtype)

    return main


def raise_plain(mode="slow"):
    if mode == "slow":
        raise NotImplementedError("slow mode")  # expected-error col 9 {{NotImplementedError: slow mode}}
    elif mode == "fast":
        pass

    @T.prim_func
    def main(A: T.Tensor((16,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((16,), "float32")

    return main


def raise_bare(flag=True):
    if flag:
        raise RuntimeError  # expected-error col 9 {{RuntimeError}}

    @T.prim_func
    def main(A: T.Tensor((16,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((16,), "float32")

    return main


def passing(N=256):
    # Conditions that hold, or that cannot be evaluated, are not errors.
    assert N % 64 == 0, "ok"
    assert torch.cuda.is_available()
    if N > 1024:
        raise ValueError("too big")

    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((N,), "float32")
            T.copy(A, a)

    return main
