"""Model of examples/vf_region.py: Y = scale * gelu(X) + R with the tanh GELU,
gelu(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).

The kernel widens x to float32 and evaluates the expression left to right as
written, ((0.5 * x) * (1 + tanhf(c * (x + ((0.044715 * x) * x) * x)))), each
operator in binary32 with the Python constants rounded to float32; then
y = (g * scale) + float32(r), rounded once to `dtype`.
"""

from oracle_lib import F32, distinct_floats, load, store, tanhf

DEFAULTS = dict(N=16384, block_N=4096, tile=1024, scale=0.5, threads=256, simt_latency=320, simd_latency=48,
                dtype="float32")

SQRT_2_OVER_PI = 0.7978845608028654


def inputs(rng, p):
    shape = (p["N"],)
    return {
        "X": distinct_floats(rng, shape, p["dtype"], lo=1.0 / 16, hi=4.0),
        "R": distinct_floats(rng, shape, p["dtype"], lo=1.0 / 16, hi=4.0),
    }


def expected(ins, p):
    dtype = p["dtype"]
    x = load(ins["X"], dtype)
    cube_term = ((F32(0.044715) * x) * x) * x
    inner = F32(SQRT_2_OVER_PI) * (x + cube_term)
    g = (F32(0.5) * x) * (F32(1.0) + tanhf(inner))
    acc = g * F32(p["scale"])
    return {"Y": store(acc + load(ins["R"], dtype), dtype)}
