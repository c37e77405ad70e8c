// Spellings upstream TileLang files use (issue 7 section 3): each gives the
// same IR as the canonical spelling, and runs to values computed here.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../sim/SimTestUtil.h"
#include "ir/Printer.h"

namespace tilesched::sim::test {
namespace {

std::string printedBody(const std::string& text) {
  std::string errors;
  auto p = compileText(text, &errors);
  EXPECT_TRUE(p) << errors;
  if (!p) return "";
  std::string ir = ir::printProgram(*p);
  return ir.substr(ir.find("@T.prim_func"));  // drop the header naming the file line
}

std::string kernelFile(const std::string& signature, const std::string& kernelLine,
                       const std::string& body) {
  return "import tilelang.language as T\n\n@T.prim_func\ndef main(" + signature + "):\n    " +
         kernelLine + "\n" + body;
}

const char* kCanonical =
    "A: T.Tensor((8,), \"float32\"), B: T.Tensor((8,), \"int32\"), "
    "O: T.Tensor((8,), \"float16\"), P: T.Tensor((8,), \"int32\")";

TEST(Spellings, SubscriptTensorAnnotationsSerialCastAndAstype) {
  std::string upstream = kernelFile(
      "A: T.Tensor[(8,), \"float32\"], B: T.Buffer[(8,), \"int32\"], "
      "O: T.Tensor[[8], T.float16], P: T.Buffer((8,), \"int32\")",
      "with T.Kernel(2) as bx:",
      "        for i in T.Serial(8):\n"
      "            O[i] = A[i].astype(\"float16\")\n"
      "            P[i] = T.Cast(\"int32\", A[i]) + (B[i] * 2).astype(T.int32)\n");
  std::string canonical = kernelFile(kCanonical, "with T.Kernel(2) as bx:",
                                     "        for i in T.serial(8):\n"
                                     "            O[i] = T.cast(A[i], \"float16\")\n"
                                     "            P[i] = T.cast(A[i], \"int32\") + B[i] * 2\n");
  EXPECT_EQ(printedBody(upstream), printedBody(canonical));

  Harness h(upstream);
  std::vector<double> a = {1.5, -2.75, 3.0, 0.25, -0.5, 7.125, -8.0, 100.5};
  std::vector<double> b = {1, -2, 3, -4, 5, -6, 7, -8};
  h.set("A", a);
  h.set("B", b);
  ASSERT_EQ(h.runReference(), "");
  std::vector<double> o, p;
  for (size_t i = 0; i < a.size(); ++i) {
    o.push_back(a[i]);  // every value is exact in float16
    p.push_back(std::trunc(a[i]) + 2 * b[i]);
  }
  EXPECT_EQ(h.get("O"), o);
  EXPECT_EQ(h.get("P"), p);
}

TEST(Spellings, AstypeOnAnAllocVarAndCastOfAConstant) {
  std::string upstream = kernelFile("A: T.Tensor((2,), \"float32\"), P: T.Tensor((2,), \"int32\")",
                                    "with T.Kernel(1) as bx:",
                                    "        v = T.alloc_var(\"float32\", init=A[0])\n"
                                    "        P[0] = v.astype(\"int32\")\n"
                                    "        P[1] = T.Cast(\"int32\", 2.9) + v.astype(T.int32)\n");
  Harness h(upstream);
  h.set("A", {-6.5, 0});
  ASSERT_EQ(h.runReference(), "");
  // float -> int32 truncates toward zero.
  EXPECT_EQ(h.get("P"), (std::vector<double>{-6, 2 + -6}));
}

// `with T.Kernel(n):` without `as`: every block runs the body; the IR is the
// one of `as bx` with bx unused.
TEST(Spellings, KernelWithoutAs) {
  std::string body = "        for i in T.serial(4):\n            O[i] = O[i] + 1.0\n";
  std::string bare = kernelFile("O: T.Tensor((4,), \"float32\")", "with T.Kernel(3):", body);
  std::string named = kernelFile("O: T.Tensor((4,), \"float32\")", "with T.Kernel(3) as bx:", body);
  EXPECT_EQ(printedBody(bare), printedBody(named));
  Harness h(bare);
  h.set("O", {0, 1, 2, 3});
  ASSERT_EQ(h.runReference(), "");
  // Three blocks each add 1 to every element, one after another.
  EXPECT_EQ(h.get("O"), (std::vector<double>{3, 4, 5, 6}));
}

}  // namespace
}  // namespace tilesched::sim::test
