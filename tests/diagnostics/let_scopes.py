# A plain assignment in a kernel is a new let that lasts to the end of the
# enclosing loop body, branch or VF region (TVMScript); only T.alloc_var names
# are mutable. Warnings where the author probably wanted a running value,
# errors where a name bound only inside such a body is used after it.
import tilelang.language as T


@T.prim_func
def main(a: T.Tensor((8,), "float32"), o: T.Tensor((16,), "float32")):
    with T.Kernel(1) as bx:
        m = a[0]
        for s in T.serial(4):
            o[s] = m
            m = m + 1.0  # expected-warning col 13 {{'m' is re-bound inside the loop, but a plain assignment lasts only to the end of the loop body: every iteration reads the value 'm' had before the loop; use T.alloc_var for a running value}}
        o[4] = m  # expected-warning col 16 {{'m' is re-bound inside the loop at line 14, but a plain assignment lasts only to the end of the loop: here 'm' has its value from before the loop; use T.alloc_var for a running value}}
        if a[1] > 0.0:
            m = m * 2.0
            o[5] = m
        o[6] = m  # expected-warning col 16 {{'m' is re-bound inside the branch at line 17, but a plain assignment lasts only to the end of the branch: here 'm' has its value from before the branch; use T.alloc_var for a running value}}
        with T.SimdVF():
            m = m + 3.0
            t = m
        o[7] = m  # expected-warning col 16 {{'m' is re-bound inside the T.SimdVF region at line 21, but a plain assignment lasts only to the end of the T.SimdVF region: here 'm' has its value from before the T.SimdVF region; use T.alloc_var for a running value}}
        o[8] = t  # expected-error col 16 {{'t' is bound only inside the T.SimdVF region at line 20 and is not defined after it; assign it before the T.SimdVF region (a T.alloc_var can hold a value computed inside)}}
        with T.SimtVF(threads=8):
            u = a[2] * 2.0
        o[9] = u + 1.0  # expected-error col 16 {{'u' is bound only inside the T.SimtVF region at line 25 and is not defined after it; assign it before the T.SimtVF region (a T.alloc_var can hold a value computed inside)}}
        for s in T.serial(2):
            last = a[s]
        o[10] = last  # expected-error col 17 {{'last' is bound only inside the loop at line 28 and is not defined after it; assign it before the loop (a T.alloc_var can hold a value computed inside)}}
        if a[3] > 0.0:
            w = a[3]
        else:
            w = a[4]
        o[11] = w  # expected-error col 17 {{'w' is bound only inside the branch at line 31 and is not defined after it; assign it before the branch (a T.alloc_var can hold a value computed inside)}}
        # No diagnostics: a re-binding used only inside its own body, and the
        # running value kept in a T.alloc_var.
        acc = T.alloc_var("float32", init=0.0)
        for s in T.serial(4):
            k = m + 1.0
            k = k * 2.0
            o[12] = k
            acc = acc + a[s]
        o[13] = acc
        n = m
        n = n + 1.0
        o[14] = n
        # A loop variable shadowing a name for the loop's duration is not a re-binding.
        j = a[5]
        for s in T.serial(2):
            for j in T.serial(2):
                o[j] = 1.0
        o[15] = j
