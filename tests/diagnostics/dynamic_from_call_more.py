# More tensor spellings of the file's own kernel call: torch.full with a shape
# tuple, torch.randint(low, high, size), torch.zeros_like, a keyword `size=`,
# the call inside a `with` block after the kernel object is renamed, and a
# tensor of the wrong rank that gives nothing (Python would reject it).
import torch
import tilelang
import tilelang.language as T


def gather_sum(width=16, dtype="float32"):
    n = T.dynamic("n")
    w = T.dynamic("w")

    @T.prim_func
    def main(
        idx: T.Tensor((n,), "int32"),
        table: T.Tensor((w, width), dtype),
        out: T.Tensor((n, width), dtype),
        extra: T.Tensor((n,), dtype),
    ):
        with T.Kernel(n // 4) as bx:
            t = T.alloc_shared((4, width), dtype)
            for i in T.serial(w // 2):
                T.copy(out[bx * 4, 0], t)

    return main


if __name__ == "__main__":
    prog = gather_sum()
    compiled = tilelang.compile(prog)
    runner = compiled
    rows = 6
    table = torch.full((rows, 16), 0.5)  # expected-note col 13 {{w=6 is dimension 0 of this tensor, passed as 'table'}}
    idx = torch.randint(0, rows, (12,), dtype=torch.int32)  # expected-note col 11 {{n=12 is dimension 0 of this tensor, passed as 'idx'}}
    out = torch.zeros_like(torch.empty(size=(12, 16)))
    extra = torch.ones(12, 1)
    with torch.no_grad():
        runner(idx, table, out, extra)  # expected-note col 9 {{kernel 'main' takes the T.dynamic sizes n=12, w=6 from the tensors of its call at line 39; -D NAME=VALUE overrides them}}
        # expected-note@-1 col 9 {{kernel 'main' runs on inputs of the kinds the file's call at line 39 passes: 'idx' from torch.randint, 'table' from torch.full, 'out' from torch.zeros_like; --input NAME=FILE.npy overrides them}}
        # expected-note@-6 col 11 {{'idx' is made here (torch.randint)}}
        # expected-note@-8 col 13 {{'table' is made here (torch.full)}}
        # expected-note@-7 col 11 {{'out' is made here (torch.zeros_like)}}

# 12 indices in blocks of 4: 3 blocks; 6 table rows: 3 steps.
# CHECK: idx: T.Tensor((12,), "int32"), table: T.Tensor((6, 16), "float32"), out: T.Tensor((12, 16), "float32"), extra: T.Tensor((12,), "float32")
# CHECK: T.Kernel(3)
# CHECK: for i in T.serial(3):
