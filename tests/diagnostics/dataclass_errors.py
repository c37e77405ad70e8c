# @dataclass case objects in factory and kernel code: construction and
# attribute errors name the class, the argument or the attribute.
from dataclasses import dataclass

import tilelang.language as T


@dataclass(frozen=True)
class Case:
    rows: int
    cols: int = 64

    def area(self):
        return self.rows * self.cols

    @property
    def wide(self):
        return self.cols * 2


@dataclass
class WithInit:
    rows: int

    def __post_init__(self):
        pass


def factory(n=64):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_ub((n,), "float32")
            T.copy(A, a)
            c = Case(4)
            x = Case()  # expected-error col 17 {{Case() missing required argument 'rows'}}
            y = Case(1, 2, 3)  # expected-error col 17 {{Case() takes 2 positional arguments but 3 were given}}
            z = Case(1, depth=2)  # expected-error col 25 {{Case() got an unexpected keyword argument 'depth'}}
            u = Case(1, rows=2)  # expected-error col 17 {{Case() got multiple values for argument 'rows'}}
            w = c.depth  # expected-error col 17 {{'Case' object has no attribute 'depth'}}
            v = c.area  # expected-error col 17 {{'Case.area' is a method; tilesched evaluates fields and @property methods of a dataclass, not method calls, yet}}
            p = WithInit(1)  # expected-error col 17 {{dataclass 'WithInit' defines __init__ or __post_init__, which is not supported yet}}
            for i in T.Parallel(c.wide // 2):
                a[i] = a[i] * c.rows
            T.copy(a, A)

    return main
