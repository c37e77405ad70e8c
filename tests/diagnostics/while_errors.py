# `while` loops: tilesched derives the trip count from a T.alloc_var counter,
# its bound and its one constant step; every other shape is an error at the
# part that breaks the rule.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32"), K: T.Tensor((1,), "int32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((64,), "float32")
        i = T.alloc_var("int32")
        n = T.alloc_var("int32")
        n = K[0]
        j = 0
        i = 0
        while i < 4:
            i += 1
        else:
            pass  # expected-error col 13 {{'while ... else' is not supported in a kernel}}
        while i < 4 and n > 0:  # expected-error col 15 {{this 'while' loop is not supported yet: its condition is not one comparison; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
            i += 1
        while j < 4:  # expected-error col 15 {{this 'while' loop is not supported yet: neither side of its condition is a T.alloc_var; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
            j += 1
        while i < A[0]:  # expected-error col 19 {{this 'while' loop is not supported yet: its bound reads memory or calls a function; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
            i += 1
        while i < 8:  # expected-error col 9 {{this 'while' loop is not supported yet: the body does not step 'i'; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
            a[0] = 1.0
        while i < 8:
            i += 1
            i = i + 2  # expected-error col 13 {{this 'while' loop is not supported yet: the body assigns 'i' twice; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
        while i < 8:
            i = i * 2  # expected-error col 13 {{this 'while' loop is not supported yet: 'i' is not stepped by a constant here; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
        while i < 8:
            i += n  # expected-error col 18 {{this 'while' loop is not supported yet: its step is not a compile-time integer; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
        while i < 8:
            i += 1
            if n > 2:
                i = 0  # expected-error col 17 {{this 'while' loop is not supported yet: 'i' is assigned inside a branch or an inner loop; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
        while i < n:
            i += 1
            n = n + 1  # expected-error col 13 {{this 'while' loop is not supported yet: the body changes 'n', which the bound reads; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
        while i < 8:
            i += 1
            if n > 2:
                break  # expected-error col 17 {{this 'while' loop is not supported yet: the body leaves the loop with break/continue; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
        while i < 8:
            i -= 1  # expected-error col 13 {{'i' steps by -1 away from the bound of 'while i < ...': the loop would never end}}
        while 8 > i:
            i += 2
        with T.SimtVF(threads=64):
            for k in T.Parallel(64):
                while i < 4:  # expected-error col 17 {{a loop is not allowed inside a T.Parallel loop}}
                    i += 1
