"""Kernel factories that take a case object, as upstream's parametrized GEMM
padding tests write them: a frozen @dataclass with fields, a default and
@property values, a list of cases, a pytest parameter set over it, and a
helper that builds the kernel from the case. tilesched compiles the first
case: rows=4, cols=40 (cols_alloc 64), scale=2.0 (the default).

    B[i, j] = A[i, j] * scale over the (rows, cols_alloc) tile
"""

from dataclasses import dataclass

import pytest

import tilelang.language as T


def ceildiv(a: int, b: int) -> int:
    return (a + b - 1) // b


@dataclass(frozen=True)
class Case:
    rows: int
    cols: int
    scale: float = 2.0

    @property
    def cols_alloc(self) -> int:
        return ceildiv(self.cols, 64) * 64


CASES = [Case(4, 40), Case(8, 100, scale=0.5)]


def make_kernel(case: Case):
    shape = (case.rows, case.cols_alloc)

    @T.prim_func
    def main(A: T.Tensor(shape, "float32"), B: T.Tensor(shape, "float32")):
        with T.Kernel(1):
            a = T.alloc_ub(shape, "float32")
            T.copy(A, a)
            for i, j in T.Parallel(case.rows, case.cols_alloc):
                a[i, j] = a[i, j] * case.scale
            T.copy(a, B)

    return main


def _run(case: Case):
    kernel = make_kernel(case)
    return kernel


@pytest.mark.parametrize("case", CASES)
def test_cases(case: Case):
    _run(case)
