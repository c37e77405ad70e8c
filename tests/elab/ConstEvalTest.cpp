// Compile-time evaluation with Python semantics (SPEC §1.1). Values are
// observed the way a kernel author sees them: a factory raises
// ValueError(f"{EXPR!r}") and the compile error carries Python's repr.
#include <gtest/gtest.h>

#include "ElabTestUtil.h"
#include "frontend/ConstEval.h"

namespace tilesched {
namespace {

using frontend::Value;
using testing::compile;

// repr() of EXPR after the factory-level SETUP lines, or the error text.
std::string evalRepr(const std::string& expr, const std::string& setup = "",
                     frontend::FrontendOptions options = {}, const std::string& params = "") {
  std::string src = "import tilelang.language as T\n\n\ndef f(" + params + "):\n";
  std::istringstream in(setup);
  for (std::string line; std::getline(in, line);) src += "    " + line + "\n";
  src += "    raise ValueError(f\"{(" + expr + ")!r}\")\n";
  src +=
      "\n    @T.prim_func\n    def main(A: T.Tensor((4,), \"float32\")):\n"
      "        with T.Kernel(1) as bx:\n            pass\n\n    return main\n";
  auto c = compile(src, options);
  if (c.diags->all().empty()) return "<no diagnostic>";
  const std::string& msg = c.diags->all().back().message;
  const std::string prefix = "ValueError: ";
  const std::string failed = "ValueError (its message could not be evaluated: ";
  if (msg.rfind(prefix, 0) == 0) return msg.substr(prefix.size());
  if (msg.rfind(failed, 0) == 0)
    return "error: " + msg.substr(failed.size(), msg.size() - failed.size() - 1);
  return "error: " + msg;
}

TEST(ConstEval, FloorDivisionAndModuloOfNegatives) {
  EXPECT_EQ(evalRepr("-7 // 2"), "-4");
  EXPECT_EQ(evalRepr("7 // -2"), "-4");
  EXPECT_EQ(evalRepr("-7 % 3"), "2");
  EXPECT_EQ(evalRepr("7 % -3"), "-2");
  EXPECT_EQ(evalRepr("-7.5 // 2"), "-4.0");
  EXPECT_EQ(evalRepr("-7.5 % 2"), "0.5");
  EXPECT_EQ(evalRepr("7 / 2"), "3.5");
  EXPECT_EQ(evalRepr("6 / 3"), "2.0");
  EXPECT_EQ(evalRepr("1 // 0"), "error: integer division by zero");
  EXPECT_EQ(evalRepr("1 % 0"), "error: integer modulo by zero");
}

// Python orders tuples and lists lexicographically (DeepGEMM-style config
// pickers compare (cost, tiles) tuples); different kinds stay an error.
TEST(ConstEval, SequencesCompareLexicographically) {
  EXPECT_EQ(evalRepr("(1, 2) < (1, 3)"), "True");
  EXPECT_EQ(evalRepr("(1, 2) < (1, 2)"), "False");
  EXPECT_EQ(evalRepr("(1, 2) <= (1, 2)"), "True");
  EXPECT_EQ(evalRepr("(2,) > (1, 9)"), "True");
  EXPECT_EQ(evalRepr("(1, 2) < (1, 2, 0)"), "True");
  EXPECT_EQ(evalRepr("[3, 1] >= [3]"), "True");
  EXPECT_EQ(evalRepr("min((4, 1), (3, 9))"), "(3, 9)");
  EXPECT_EQ(evalRepr("(1, 2) < [1, 3]"),
            "error: '<' not supported between instances of 'tuple' and 'list'");
}

TEST(ConstEval, Power) {
  EXPECT_EQ(evalRepr("2 ** 10"), "1024");
  EXPECT_EQ(evalRepr("(-1) ** 3"), "-1");
  EXPECT_EQ(evalRepr("(-2) ** 3"), "-8");
  EXPECT_EQ(evalRepr("3 ** 0"), "1");
  EXPECT_EQ(evalRepr("2 ** -1"), "0.5");
  EXPECT_EQ(evalRepr("2.0 ** 3"), "8.0");
  EXPECT_EQ(evalRepr("2 ** 62"), "4611686018427387904");
  EXPECT_EQ(
      evalRepr("2 ** 64"),
      "error: integer overflow in constant expression (tilesched evaluates with 64-bit ints)");
  EXPECT_EQ(evalRepr("1 ** 1000000000000"), "1");
  EXPECT_EQ(evalRepr("(-1) ** 1000000000001"), "-1");
}

TEST(ConstEval, BitsAndShifts) {
  EXPECT_EQ(evalRepr("1 << 10"), "1024");
  EXPECT_EQ(evalRepr("-16 >> 2"), "-4");
  EXPECT_EQ(evalRepr("6 & 3, 6 | 3, 6 ^ 3, ~5"), "(2, 7, 5, -6)");
}

TEST(ConstEval, FStrings) {
  EXPECT_EQ(evalRepr("f\"N={N} tile={tile:>6} r={r:.2f} s={s!r}\"",
                     "N = 8\ntile = 64\nr = 1 / 3\ns = 'x'"),
            "\"N=8 tile=    64 r=0.33 s='x'\"");
  EXPECT_EQ(evalRepr("f\"{1.0} {1e-06} {True} {None} {(1, 2)}\""), "'1.0 1e-06 True None (1, 2)'");
  EXPECT_EQ(evalRepr("f\"{255:x} {0.25:%} {7:03d}\""), "'ff 25.000000% 007'");
}

TEST(ConstEval, TupleUnpackingAndSequences) {
  EXPECT_EQ(evalRepr("(a, b, c)", "a, b = 1, 2\n(c, d) = [3, 4]"), "(1, 2, 3)");
  EXPECT_EQ(evalRepr("(M, N)", "shape = (128, 64)\nM, N = shape"), "(128, 64)");
  EXPECT_EQ(
      evalRepr("x", "x, y = 1, 2, 3"),
      "error: 'x' could not be evaluated at compile time: cannot unpack 3 values into 2 names");
  EXPECT_EQ(evalRepr("(1, 2) + (3,)"), "(1, 2, 3)");
  EXPECT_EQ(evalRepr("[0] * 3"), "[0, 0, 0]");
  EXPECT_EQ(evalRepr("2 * (1,)"), "(1, 1)");
  EXPECT_EQ(evalRepr("(1, 2, 3)[-1]"), "3");
  EXPECT_EQ(evalRepr("(1, 2, 3, 4)[1:3]"), "(2, 3)");
  EXPECT_EQ(evalRepr("(1, 2, 3, 4)[::-1]"), "(4, 3, 2, 1)");
  EXPECT_EQ(evalRepr("(1, 2, 3, 4)[-100:100:2]"), "(1, 3)");
  EXPECT_EQ(evalRepr("'float16'[5:]"), "'16'");
  EXPECT_EQ(evalRepr("len((1, 2, 3)), len('abc')"), "(3, 3)");
  EXPECT_EQ(evalRepr("() * 1000000000000000000"), "()");
  EXPECT_EQ(evalRepr("'' * 1000000000000000000"), "''");
  EXPECT_EQ(evalRepr("'ab' * 1000000000000"),
            "error: string repetition is too large (at most 1000000 characters)");
}

TEST(ConstEval, ComparisonsAndLogic) {
  EXPECT_EQ(evalRepr("1 < 2 < 3, 1 < 3 < 2"), "(True, False)");
  EXPECT_EQ(evalRepr("3 in (1, 2, 3), 4 not in [1, 2], 'a' in 'cat', 'k' in {'k': 1}"),
            "(True, True, True, True)");
  EXPECT_EQ(evalRepr("0 or 5, 3 and 0, not 0, None is None"), "(5, 0, True, True)");
  EXPECT_EQ(evalRepr("1 == 1.0, 'a' != 'b', (1, 2) == (1, 2)"), "(True, True, True)");
}

TEST(ConstEval, ConditionalExpression) {
  EXPECT_EQ(evalRepr("'big' if N > 4 else 'small'", "N = 8"), "'big'");
  EXPECT_EQ(evalRepr("'big' if N > 4 else 'small'", "N = 2"), "'small'");
}

TEST(ConstEval, Builtins) {
  EXPECT_EQ(evalRepr("min(3, 1, 2), max((4, 9, 2)), abs(-5), abs(-2.5)"), "(1, 9, 5, 2.5)");
  EXPECT_EQ(evalRepr("int(3.9), int(-3.9), int('42'), float(2), float('1.5'), int(True)"),
            "(3, -3, 42, 2.0, 1.5, 1)");
  EXPECT_EQ(evalRepr("str(12) + 'x', bool(0), tuple([1, 2]), list((3,))"),
            "('12x', False, (1, 2), [3])");
  EXPECT_EQ(evalRepr("T.ceildiv(10, 4), T.ceildiv(8, 4), T.ceildiv(-10, 4)"), "(3, 2, -2)");
  EXPECT_EQ(evalRepr("T.min(2, 5), T.max(2, 5)"), "(2, 5)");
}

TEST(ConstEval, DTypeNames) {
  // T.float16 and "float16" are the same dtype.
  EXPECT_EQ(evalRepr("T.float16 == 'float16', T.bfloat16 == \"bfloat16\", T.int8 != T.int32"),
            "(True, True, True)");
  EXPECT_EQ(evalRepr("d", "d = T.float32"), "float32");
  EXPECT_EQ(evalRepr("'float16' if d == T.float16 else 'other'", "d = 'float16'"), "'float16'");
}

TEST(ConstEval, FactoryHelpersAndIfs) {
  std::string setup =
      "def tiles(n, t=64):\n"
      "    if n % t:\n"
      "        return n // t + 1\n"
      "    return n // t\n"
      "if True:\n"
      "    K = tiles(200)\n"
      "else:\n"
      "    K = 0\n"
      "K += 1";
  EXPECT_EQ(evalRepr("K", setup), "5");
}

TEST(ConstEval, GetattrIsAttributeAccess) {
  EXPECT_EQ(evalRepr("getattr(T, 'float16')"), "float16");
  EXPECT_EQ(evalRepr("getattr(T, 'float' + str(bits))", "bits = 32"), "float32");
}

TEST(ConstEval, DefinesAreLiterals) {
  auto withD = [](std::string name, std::string value) {
    frontend::FrontendOptions o;
    o.defines.push_back({std::move(name), std::move(value)});
    return o;
  };
  EXPECT_EQ(evalRepr("N", "", withD("N", "1048576"), "N=1"), "1048576");
  EXPECT_EQ(evalRepr("dtype", "", withD("dtype", "float16"), "dtype='float32'"), "'float16'");
  EXPECT_EQ(evalRepr("dtype", "", withD("dtype", "\"float16\""), "dtype='float32'"), "'float16'");
  EXPECT_EQ(evalRepr("dtype == T.float16", "", withD("dtype", "float16"), "dtype='float32'"),
            "True");
  EXPECT_EQ(evalRepr("flag", "", withD("flag", "True"), "flag=False"), "True");
  EXPECT_EQ(evalRepr("shape", "", withD("shape", "(128, 64)"), "shape=None"), "(128, 64)");
  EXPECT_EQ(evalRepr("eps", "", withD("eps", "1e-5"), "eps=0.1"), "1e-05");
  EXPECT_EQ(evalRepr("N", "", withD("N", "-3"), "N=1"), "-3");
  EXPECT_EQ(evalRepr("N", "", withD("N", "2 ** 4"), "N=1"), "16");
  // A -D without a default still works; no -D and no default is an error.
  EXPECT_EQ(evalRepr("M", "", withD("M", "7"), "M"), "7");
}

TEST(ConstEval, DirectApi) {
  using frontend::constBinary;
  SourceLoc loc{1, 1};
  EXPECT_EQ(constBinary("//", Value::integer(-7), Value::integer(2), loc).i, -4);
  EXPECT_EQ(constBinary("%", Value::integer(-7), Value::integer(2), loc).i, 1);
  EXPECT_EQ(frontend::floatRepr(0.1), "0.1");
  EXPECT_EQ(frontend::floatRepr(1e22), "1e+22");
  EXPECT_EQ(frontend::floatRepr(3.0), "3.0");
  EXPECT_EQ(frontend::pyRepr(Value::str("it's")), "\"it's\"");
  EXPECT_EQ(frontend::pyRepr(Value::str("a'\"b\n")), "'a\\'\"b\\n'");
  EXPECT_THROW(constBinary("+", Value::str("a"), Value::integer(1), loc), frontend::EvalError);
  EXPECT_TRUE(frontend::constCompare("in", Value::integer(2),
                                     Value::tuple({Value::integer(1), Value::integer(2)}), loc));
  EXPECT_FALSE(frontend::truthy(Value::tuple({}), loc));
}

}  // namespace
}  // namespace tilesched
