# @T.macro helpers are inlined at their call sites; their errors point into
# the macro body.
import tilelang.language as T


@T.macro
def load(src, dst, offset):
    T.copy(src[offset], dst)


@T.macro
def bad_body(dst):
    T.fill(dst, "zero")  # expected-error col 17 {{expected a scalar value, got str 'zero'}}


@T.macro
def recurse(dst):
    recurse(dst)  # expected-error col 5 {{macro nesting too deep (recursive macro?)}}


@T.macro
def star(*args):  # expected-error col 11 {{'*args' and '**kwargs' are not supported in macros}}
    pass


def helper(n):
    return n * 2


def raising_helper(n):
    raise ValueError("no")  # expected-error col 5 {{ValueError: no}}


def kernel(N=1024):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(4) as bx:
            a = T.alloc_shared((256,), "float32")
            load(A, a, bx * 256)
            load(A, a)  # expected-error col 13 {{macro 'load' is missing argument 'offset'}}
            load(A, a, 0, 1)  # expected-error col 13 {{macro 'load' takes 3 arguments (4 given)}}
            load(A, dst=a, offset=helper(128))
            bad_body(a)  # expected-note col 13 {{in macro 'bad_body' inlined here}}
            recurse(a)  # expected-note col 13 {{in macro 'recurse' inlined here}}
            star(a)
            x = load(A, a, 0)  # no return: x is None, as in Python
            y = raising_helper(3)
            z = helper()  # expected-error col 17 {{helper() missing required argument 'n'}}
            w = main(A)  # expected-error col 17 {{calling a @T.prim_func is not supported}}

    return main
# expected-note@18 col 5 {{in macro 'recurse' inlined here}}
