# Host helpers that cannot give a value say why; the factory name bound to
# the result reports it where a kernel needs the value.
import math

import torch

import tilelang
import tilelang.language as T


def spin(n):
    while n > 0:
        n = n + 1
    return n


def walk(items):
    total = 0
    for x in items:
        total += x
    return total


def bad_sizes(N=64):
    depth = math.log2(0)
    steps = spin(1)
    total = walk(torch.arange(4))

    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((depth,), "float32")  # expected-error col 33 {{'depth' could not be evaluated at compile time: ValueError: math domain error}}
            b = T.alloc_shared((steps,), "float32")  # expected-error col 33 {{'steps' could not be evaluated at compile time: function 'spin' runs more than 65536 loop iterations at compile time}}
            c = T.alloc_shared((total,), "float32")  # expected-error col 33 {{'total' could not be evaluated at compile time: function 'walk' loops over 'torch.arange(...)'; only a range() or a constant tuple or list can be looped over at compile time}}

    return main
