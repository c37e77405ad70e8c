# T.annotate_layout({buffer: layout}) is accepted with a warning: tilesched
# indexes buffers logically, so a layout changes no value. The layouts are not
# evaluated (TileLang's T.Fragment with lambdas, helper functions).
import tilelang.language as T


def nz_layout(buf):
    return ("nz", buf)


@T.prim_func
def main(A: T.Tensor((16, 16), "float32"), B: T.Tensor((16, 16), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_shared((16, 16), "float32")
        frag = T.alloc_fragment((16, 16), "float32")
        T.annotate_layout({ub: nz_layout(ub)})  # expected-warning col 9 {{T.annotate_layout has no effect in tilesched: buffers are indexed logically, and a layout changes only where the elements sit (the simulator does not model bank or fractal placement)}}
        T.annotate_layout({frag: T.Fragment((16, 16), forward_fn=lambda i, j: (i, j))})  # expected-warning col 9 {{T.annotate_layout has no effect in tilesched: buffers are indexed logically, and a layout changes only where the elements sit (the simulator does not model bank or fractal placement)}}
        T.annotate_layout(ub)  # expected-error col 9 {{T.annotate_layout takes one dict: {buffer: layout, ...}}}
        T.annotate_layout({3: ub})  # expected-error col 28 {{the keys of T.annotate_layout are buffers}}
        T.copy(A, ub)
        T.copy(ub, frag)
        getattr(T, "copy")(frag, B)
        x = getattr(T, 3)  # expected-error col 13 {{the name given to getattr must be a string}}
