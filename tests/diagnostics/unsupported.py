# Constructs outside the subset are named in a "not supported yet" error.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32"), B: T.Tensor((1024,), "float32")):
    with T.Kernel(4) as bx:
        a = T.alloc_shared((256,), "float32")
        b = T.alloc_shared((256,), "float32")
        i = T.alloc_var("int32")
        while i != 4:  # expected-error col 15 {{this 'while' loop is not supported yet: its comparison is '!='; tilesched runs a while loop that compares a T.alloc_var counter with a bound the body does not change (v < E, v <= E, v > E, v >= E) and steps the counter once per iteration by a constant (v = v + 1, v += c), outside any branch or inner loop}}
            i = i + 1
        with T.Task(latency=4, ii=2):  # expected-warning col 14 {{T.Task is read as a plain block: its statements are scheduled one by one (the grouping and its latency/ii are not modelled yet)}}
            T.copy(A[0:256], a)
        T.Task()  # expected-error col 9 {{T.Task is not supported yet}}
        T.assume_no_conflict(a, b)  # expected-error col 9 {{T.assume_no_conflict takes one buffer or slice: T.assume_no_conflict(a[...])}}
        T.assume_no_conflict(a, cross=True)  # expected-warning col 9 {{T.assume_no_conflict has no effect: tilesched derives dependences from the exact regions each access touches, so there is nothing the hint could remove}}
        T.dual_copy(A[0:256], a, b)  # expected-error col 9 {{T.dual_copy takes a source and a destination (3 given)}}
        T.simd.vadd(a, b)  # expected-error col 9 {{T.simd.vadd is a vector register intrinsic: use it inside 'with T.SimdVF():'}}
        x = T.simd.vmul(a, b)  # expected-error col 13 {{T.simd.vmul is a vector register intrinsic: use it inside 'with T.SimdVF():'}}
        with T.Scope("V"):  # expected-error col 14 {{'with T.Scope' is not supported yet}}
            pass
        T.barrier_all()
        try:  # expected-error col 9 {{'try' statements are not supported}}
            T.copy(A[0:256], a)
        except Exception:
            pass
        match i:  # expected-error col 9 {{'match' statements are not supported}}
            case 1:
                pass
        def helper():  # expected-error col 9 {{nested functions are not supported in a kernel body (use @T.macro)}}
            pass
        for j in T.serial(4):
            if j == 2:
                break  # expected-error col 17 {{'break' is not supported in a kernel}}
            continue  # expected-error col 13 {{'continue' is not supported in a kernel}}
        return  # expected-error col 9 {{'return' is not supported in a kernel body}}
        for k in T.serial(4):
            pass
        else:
            pass  # expected-error col 13 {{'for ... else' is not supported in a kernel}}
        del a  # expected-error col 9 {{'del' is not supported in a kernel body}}
        global counter  # expected-error col 9 {{'global' and 'nonlocal' are not supported in a kernel body}}
        T.whatever(a)  # expected-error col 9 {{unknown function T.whatever; it is not in the TileLang subset tilesched supports}}
        print("debug")
        a.shape  # expected-error col 9 {{expression statement has no effect}}
        lambda: 0  # expected-error col 9 {{expression statement has no effect}}
        T.copy(A[0:256], b)
