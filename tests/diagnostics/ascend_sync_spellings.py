# The AscendC synchronisation spellings upstream hand-synchronised kernels use:
# T.ascend_pipe_barrier("PIPE_X") and T.ascend_set_flag / T.ascend_wait_flag
# with a "SRC_DST" hard event, read as T.pipe_barrier / T.set_flag / T.wait_flag.
import tilelang.language as T


def synced_copy(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((N,), "float32")
            T.copy(A, a)
            T.ascend_set_flag("MTE2_V", 0)
            T.ascend_wait_flag("MTE2_V", 0)
            T.ascend_pipe_barrier("PIPE_V")
            T.ascend_pipe_barrier("PIPE_ALL")
            T.ascend_set_flag("V_MTE3", 1)
            T.ascend_wait_flag("V_MTE3", 1)
            T.copy(a, B)

    return main

# CHECK: T.copy(A, a)  # MTE2
# CHECK: T.set_flag("MTE2", "V", 0)
# CHECK: T.wait_flag("MTE2", "V", 0)
# CHECK: T.pipe_barrier("V")
# CHECK: T.pipe_barrier("ALL")
# CHECK: T.set_flag("V", "MTE3", 1)
# CHECK: T.wait_flag("V", "MTE3", 1)
# CHECK: T.copy(a, B)  # MTE3
