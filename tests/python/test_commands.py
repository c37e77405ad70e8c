"""tilesched.compile / run / explain: reports as dicts, numpy inputs and
outputs (checked against numpy's own arithmetic), CompileError with the
diagnostics' positions."""

import os

import numpy
import pytest

import tilesched

from conftest import ROOT

VEC_ADD = os.path.join(ROOT, "examples", "vec_add.py")


def test_compile_returns_the_report():
    report = tilesched.compile(VEC_ADD, defines={"N": 32768, "dtype": "float16"})
    kernel = report["kernels"][0]
    assert {b["name"]: b["versions"] for b in kernel["buffers"]} == {"a_ub": 2, "b_ub": 2, "c_ub": 2}
    assert {b["name"]: b["dtype"] for b in kernel["buffers"]}["a_ub"] == "float16"
    assert report["diagnostics"] == []


def test_run_takes_and_gives_numpy_arrays():
    rng = numpy.random.default_rng(7)
    a = rng.standard_normal(16384).astype(numpy.float32)
    b = rng.standard_normal(16384).astype(numpy.float32)
    report = tilesched.run(VEC_ADD, inputs={"A": a, "B": b})
    assert report["simulation"]["pass"] is True
    assert report["simulation"]["races"] == 0
    numpy.testing.assert_array_equal(report["outputs"]["C"], a + b)


def test_run_passes_cores_and_further_options(tmp_path):
    svg = tmp_path / "t.svg"
    report = tilesched.run(VEC_ADD, cores=2, extra_args=["--timeline", svg])
    assert report["kernels"][0]["simulation"]["waves"] == 2
    assert "wave 2 of 2" in svg.read_text()


def test_explain_gives_the_reasons_and_the_text():
    report = tilesched.explain(VEC_ADD)
    assert "loop s" in report["text"] and "proven optimal" in report["text"]
    assert report["kernels"][0]["buffers"][0]["why"]["kind"] == "schedule-needs"


def test_compile_errors_carry_their_positions(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import tilelang.language as T\n"
        "@T.prim_func\n"
        "def k(A: T.Tensor((16,), \"float32\")):\n"
        "    with T.Kernel(1) as bx:\n"
        "        x = T.alloc_ub((16,), \"float33\")\n")
    with pytest.raises(tilesched.CompileError) as error:
        tilesched.compile(bad)
    [d] = error.value.diagnostics
    assert (d.file, d.line, d.column, d.severity) == (str(bad), 5, 31, "error")
    assert d.message.startswith("unknown dtype 'float33'")
    with pytest.raises(tilesched.CompileError):
        tilesched.run(bad)


def test_an_unreadable_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        tilesched.compile(tmp_path / "missing.py")
