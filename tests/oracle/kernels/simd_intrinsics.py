"""T.simd register intrinsics in a T.SimdVF region, in the style of the
upstream SIMD examples: predicates from T.simd.pset (all lanes, the first 16)
and T.simd.update_mask (a run-time count), loads of one 256-byte register
(64 float32 / 128 float16 lanes) from rows of 2-D UB buffers, arithmetic with
zeroing masks, scalar operands, broadcasts, a mutable register accumulating
over a loop (read into a snapshot before a last update), and stores that
write the active lanes only.

    O[r, :] = max(X * Y, X + 0.5) / 4                  (float32)
    S[:]    = sum over r of |X[r, :]|, in row order    (float32)
    P[r, l] = -Y[r, l] if l < 16 and l < 16 r + 8; 0 if 16 r + 8 <= l < 16; -1 else
    G[l]    = relu(2 H[l]) for l < 32 (the 16 float32 lanes of the mask, in
              float16 lanes), 0 above                  (float16)
"""

import tilelang
import tilelang.language as T


def simd_ops():
    @T.prim_func
    def main(
        X: T.Tensor((4, 64), "float32"),
        Y: T.Tensor((4, 64), "float32"),
        H: T.Tensor((128,), "float16"),
        O: T.Tensor((4, 64), "float32"),
        S: T.Tensor((64,), "float32"),
        P: T.Tensor((4, 64), "float32"),
        G: T.Tensor((128,), "float16"),
    ):
        with T.Kernel(1):
            x = T.alloc_shared((4, 64), "float32")
            y = T.alloc_shared((4, 64), "float32")
            o = T.alloc_shared((4, 64), "float32")
            s = T.alloc_shared((64,), "float32")
            p = T.alloc_shared((4, 64), "float32")
            h = T.alloc_shared((128,), "float16")
            g = T.alloc_shared((128,), "float16")
            T.copy(X, x)
            T.copy(Y, y)
            T.copy(H, h)
            T.fill(p, -1.0)
            with T.SimdVF():
                full = T.simd.pset(32)
                head = T.simd.pset(32, "PAT_VL16")
                acc = T.simd.alloc_var("float32")
                acc = T.simd.vdup(0.0, "float32")
                quarter = T.simd.vdup(4.0, "float32", full)
                for r in T.serial(4):
                    a = T.simd.vld(x[r, 0])
                    b = T.simd.vld(y[r, 0])
                    t = T.simd.vmax(T.simd.vmul(a, b, full), T.simd.vadds(a, 0.5), full)
                    T.simd.vsts(o[r, 0], T.simd.vdiv(t, quarter, full), full)
                    acc = T.simd.vadd(acc, T.simd.vabs(a), full)
                    part = T.simd.update_mask(r * 16 + 8)
                    T.simd.vsts(p[r, 0], T.simd.vneg(b, part), head)
                snap = acc  # a snapshot: the update below does not reach it
                acc = T.simd.vadds(acc, 1.0)
                T.simd.vsts(s[0], snap, full)
                hv = T.simd.vld(h[0])
                T.simd.vsts(g[0], T.simd.vrelu(T.simd.vmuls(hv, 2.0), head), full, dist="NORM_B16")
            T.copy(o, O)
            T.copy(s, S)
            T.copy(p, P)
            T.copy(g, G)

    return main


if __name__ == "__main__":
    simd_ops()
