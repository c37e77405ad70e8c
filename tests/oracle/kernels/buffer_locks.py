"""Buffer locks (`T.ascend_get_buf` / `T.ascend_rls_buf`, AscendC's asc_lock /
asc_unlock) ordering a hand-pipelined vector add over two UB slots, in the
style of upstream's example_simtvf_vecadd_mutex.py. As written, each get_buf
is a barrier on every pipe (tilesched does not model the lock table); the
scheduled lowerings replace the locks by their own flags.

    C = A * 2 + B
"""

import tilelang
import tilelang.language as T


def buffer_locks(N=4096, blocks=4, tile=256, stages=2):
    tiles = N // (blocks * tile)

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(blocks) as bx:
            a = T.alloc_shared((stages, tile), "float32")
            b = T.alloc_shared((stages, tile), "float32")
            c = T.alloc_shared((stages, tile), "float32")
            for it in range(tiles):
                begin = (it * blocks + bx) * tile
                end = begin + tile
                slot = it % stages
                T.ascend_get_buf("PIPE_MTE2", slot + 2)
                T.copy(A[begin:end], a[slot, :])
                T.copy(B[begin:end], b[slot, :])
                T.ascend_rls_buf("PIPE_MTE2", slot + 2)
                T.ascend_get_buf("PIPE_V", slot + 2, mode=False)
                T.ascend_get_buf("PIPE_V", slot)
                with T.SimtVF(threads=64):
                    for i in T.Parallel(tile):
                        c[slot, i] = a[slot, i] * 2.0 + b[slot, i]
                T.ascend_rls_buf("PIPE_V", slot)
                T.ascend_rls_buf("PIPE_V", slot + 2)
                T.ascend_get_buf("PIPE_MTE3", slot)
                T.copy(c[slot, :], C[begin:end])
                T.ascend_rls_buf("PIPE_MTE3", slot)

    return main


if __name__ == "__main__":
    buffer_locks()
