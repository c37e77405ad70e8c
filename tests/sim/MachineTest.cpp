// Op semantics of the reference interpreter (SPEC §1.6), each against values
// computed by hand: copies with dtype conversion, gemm (fp32 accumulation in
// increasing k, transposes, clear_accum), every reduction, integer floor
// division/modulo, transcendental functions, fills, selects, and run-time
// out-of-bounds errors naming the buffer, the index and the line.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "SimTestUtil.h"

namespace tilesched::sim::test {
namespace {

TEST(Machine, CopyConvertsFloat32ToFloat16WithRoundToNearestEven) {
  Harness h(kernelText("A: T.Tensor((4,), \"float32\"), B: T.Tensor((4,), \"float16\")",
                       "a = T.alloc_shared((4,), \"float16\")\n"
                       "T.copy(A, a)\n"
                       "T.copy(a, B)"));
  double tie = 1.0 + std::ldexp(1.0, -11), up = 1.0 + 3 * std::ldexp(1.0, -11);
  h.set("A", {tie, up, 70000.0, -0.5});
  ASSERT_EQ(h.runReference(), "");
  auto b = h.get("B");
  EXPECT_EQ(b[0], 1.0);
  EXPECT_EQ(b[1], 1.0 + std::ldexp(1.0, -9));
  EXPECT_TRUE(std::isinf(b[2]));
  EXPECT_EQ(b[3], -0.5);
}

TEST(Machine, ParallelArithmeticInFloat16RoundsEveryStore) {
  Harness h(kernelText("A: T.Tensor((2,), \"float16\"), B: T.Tensor((2,), \"float16\")",
                       "a = T.alloc_shared((2,), \"float16\")\n"
                       "b = T.alloc_shared((2,), \"float16\")\n"
                       "T.copy(A, a)\n"
                       "for i in T.Parallel(2):\n"
                       "    b[i] = a[i] + 0.0009765625\n"
                       "T.copy(b, B)"));
  // 2048 + 1/1024 is not representable (ulp at 2048 is 2): stays 2048.
  h.set("A", {2048.0, 1.0});
  ASSERT_EQ(h.runReference(), "");
  auto b = h.get("B");
  EXPECT_EQ(b[0], 2048.0);
  EXPECT_EQ(b[1], 1.0009765625);
}

TEST(Machine, GemmAccumulatesInFloat32InIncreasingK) {
  // C = A(2x3) @ B(3x2), float16 operands, float32 accumulator.
  Harness h(
      kernelText("A: T.Tensor((2, 3), \"float16\"), B: T.Tensor((3, 2), \"float16\"), C: "
                 "T.Tensor((2, 2), \"float32\")",
                 "a = T.alloc_l1((2, 3), \"float16\")\n"
                 "b = T.alloc_l1((3, 2), \"float16\")\n"
                 "c = T.alloc_l0c((2, 2), \"float32\")\n"
                 "T.copy(A, a)\n"
                 "T.copy(B, b)\n"
                 "T.gemm(a, b, c, clear_accum=True)\n"
                 "T.gemm(a, b, c)\n"
                 "T.copy(c, C)"));
  h.set("A", {1, 2, 3, 4, 5, 6});
  h.set("B", {1, 0, 0, 1, 1, 1});
  ASSERT_EQ(h.runReference(), "");
  // A @ B = [[4, 5], [10, 11]]; the second gemm accumulates: twice that.
  EXPECT_EQ(h.get("C"), (std::vector<double>{8, 10, 20, 22}));
}

TEST(Machine, GemmOrderOfAccumulationIsVisible) {
  // 2^24 + 1 - 2^24 in float32, k increasing: (0 + 2^24) + 1 = 2^24 (1 is lost),
  // then - 2^24 = 0. Any other order or a wider accumulator would give 1.
  Harness h(
      kernelText("A: T.Tensor((1, 3), \"float32\"), B: T.Tensor((3, 1), \"float32\"), C: "
                 "T.Tensor((1, 1), \"float32\")",
                 "a = T.alloc_l1((1, 3), \"float32\")\n"
                 "b = T.alloc_l1((3, 1), \"float32\")\n"
                 "c = T.alloc_l0c((1, 1), \"float32\")\n"
                 "T.copy(A, a)\n"
                 "T.copy(B, b)\n"
                 "T.gemm(a, b, c, clear_accum=True)\n"
                 "T.copy(c, C)"));
  h.set("A", {16777216.0, 1.0, -16777216.0});
  h.set("B", {1, 1, 1});
  ASSERT_EQ(h.runReference(), "");
  EXPECT_EQ(h.get("C")[0], 0.0);
}

TEST(Machine, GemmTransposes) {
  // C = A^T @ B^T with A: (2, 2) = [[1, 2], [3, 4]], B: (2, 2) = [[1, 1], [0, 1]].
  // A^T = [[1, 3], [2, 4]], B^T = [[1, 0], [1, 1]] -> [[4, 3], [6, 4]].
  Harness h(
      kernelText("A: T.Tensor((2, 2), \"float16\"), B: T.Tensor((2, 2), \"float16\"), C: "
                 "T.Tensor((2, 2), \"float32\")",
                 "a = T.alloc_l1((2, 2), \"float16\")\n"
                 "b = T.alloc_l1((2, 2), \"float16\")\n"
                 "c = T.alloc_l0c((2, 2), \"float32\")\n"
                 "T.copy(A, a)\n"
                 "T.copy(B, b)\n"
                 "T.gemm(a, b, c, transpose_A=True, transpose_B=True, clear_accum=True)\n"
                 "T.copy(c, C)"));
  h.set("A", {1, 2, 3, 4});
  h.set("B", {1, 1, 0, 1});
  ASSERT_EQ(h.runReference(), "");
  EXPECT_EQ(h.get("C"), (std::vector<double>{4, 3, 6, 4}));
}

std::string reduceKernel(const std::string& op, bool clear) {
  return kernelText("A: T.Tensor((2, 3), \"float32\"), R: T.Tensor((2,), \"float32\")",
                    "a = T.alloc_shared((2, 3), \"float32\")\n"
                    "r = T.alloc_shared((2,), \"float32\")\n"
                    "T.copy(A, a)\n"
                    "T.fill(r, 10.0)\n"
                    "T.reduce_" +
                        op + "(a, r, dim=1" + (clear ? "" : ", clear=False") +
                        ")\n"
                        "T.copy(r, R)");
}

TEST(Machine, Reductions) {
  struct Case {
    const char* op;
    bool clear;
    std::vector<double> expect;
  };
  // Rows: [1, -5, 2] and [-3, 4, -0.5].
  std::vector<Case> cases = {
      {"sum", true, {-2, 0.5}},   {"max", true, {2, 4}},    {"min", true, {-5, -3}},
      {"abssum", true, {8, 7.5}}, {"absmax", true, {5, 4}}, {"sum", false, {8, 10.5}},
      {"max", false, {10, 10}},
  };
  for (const auto& c : cases) {
    Harness h(reduceKernel(c.op, c.clear));
    h.set("A", {1, -5, 2, -3, 4, -0.5});
    ASSERT_EQ(h.runReference(), "") << c.op;
    EXPECT_EQ(h.get("R"), c.expect) << "reduce_" << c.op << (c.clear ? "" : " clear=False");
  }
}

TEST(Machine, ReduceOverLeadingDimension) {
  Harness h(kernelText("A: T.Tensor((2, 3), \"float32\"), R: T.Tensor((3,), \"float32\")",
                       "a = T.alloc_shared((2, 3), \"float32\")\n"
                       "r = T.alloc_shared((3,), \"float32\")\n"
                       "T.copy(A, a)\n"
                       "T.reduce_sum(a, r, dim=0)\n"
                       "T.copy(r, R)"));
  h.set("A", {1, 2, 3, 10, 20, 30});
  ASSERT_EQ(h.runReference(), "");
  EXPECT_EQ(h.get("R"), (std::vector<double>{11, 22, 33}));
}

TEST(Machine, ReductionOrderIsIncreasingIndex) {
  // float32: ((2^24 + 1) + 1) = 2^24 twice lost; increasing order gives 2^24.
  Harness h(kernelText("A: T.Tensor((3,), \"float32\"), R: T.Tensor((1,), \"float32\")",
                       "a = T.alloc_shared((3,), \"float32\")\n"
                       "r = T.alloc_shared((1,), \"float32\")\n"
                       "T.copy(A, a)\n"
                       "T.reduce_sum(a, r)\n"
                       "T.copy(r, R)"));
  h.set("A", {16777216.0, 1.0, 1.0});
  ASSERT_EQ(h.runReference(), "");
  EXPECT_EQ(h.get("R")[0], 16777216.0);
}

TEST(Machine, IntegerFloorDivisionAndModulo) {
  Harness h(kernelText(
      "A: T.Tensor((4,), \"int32\"), Q: T.Tensor((4,), \"int32\"), M: T.Tensor((4,), \"int32\")",
      "a = T.alloc_shared((4,), \"int32\")\n"
      "q = T.alloc_shared((4,), \"int32\")\n"
      "m = T.alloc_shared((4,), \"int32\")\n"
      "T.copy(A, a)\n"
      "for i in T.Parallel(4):\n"
      "    q[i] = a[i] // 3\n"
      "    m[i] = a[i] % 3\n"
      "T.copy(q, Q)\n"
      "T.copy(m, M)"));
  h.set("A", {7, -7, 6, -1});
  ASSERT_EQ(h.runReference(), "");
  EXPECT_EQ(h.get("Q"), (std::vector<double>{2, -3, 2, -1}));
  EXPECT_EQ(h.get("M"), (std::vector<double>{1, 2, 0, 2}));
}

TEST(Machine, IntegerDivisionByZeroIsARunTimeError) {
  Harness h(kernelText("A: T.Tensor((2,), \"int32\"), Q: T.Tensor((2,), \"int32\")",
                       "a = T.alloc_shared((2,), \"int32\")\n"
                       "T.copy(A, a)\n"
                       "for i in T.Parallel(2):\n"
                       "    a[i] = 5 // a[i]\n"
                       "T.copy(a, Q)"));
  h.set("A", {1, 0});
  std::string err = h.runReference();
  EXPECT_NE(err.find("division by zero"), std::string::npos) << err;
  EXPECT_NE(err.find("line 9"), std::string::npos) << err;
}

TEST(Machine, TranscendentalsAndSelect) {
  Harness h(kernelText("A: T.Tensor((4,), \"float32\"), B: T.Tensor((4,), \"float32\")",
                       "a = T.alloc_shared((4,), \"float32\")\n"
                       "b = T.alloc_shared((4,), \"float32\")\n"
                       "T.copy(A, a)\n"
                       "b[0] = T.exp(a[0])\n"
                       "b[1] = T.sqrt(a[1])\n"
                       "b[2] = T.sigmoid(a[2])\n"
                       "b[3] = T.if_then_else(a[3] > 0.0, T.log(a[3]), -1.0)\n"
                       "T.copy(b, B)"));
  h.set("A", {1.0, 2.25, 0.0, -3.0});
  ASSERT_EQ(h.runReference(), "");
  auto b = h.get("B");
  EXPECT_EQ(b[0], static_cast<double>(std::exp(1.0f)));
  EXPECT_EQ(b[1], 1.5);
  EXPECT_EQ(b[2], 0.5);
  EXPECT_EQ(b[3], -1.0);  // the log of a negative number is never evaluated
}

TEST(Machine, FillAndClearAndCasts) {
  Harness h(kernelText("B: T.Tensor((4,), \"int32\")",
                       "f = T.alloc_shared((4,), \"float32\")\n"
                       "b = T.alloc_shared((4,), \"int32\")\n"
                       "T.fill(f, 2.75)\n"
                       "T.clear(b)\n"
                       "for i in T.Parallel(2):\n"
                       "    b[i] = T.cast(f[i] * -1.0, \"int32\")\n"
                       "T.copy(b, B)"));
  ASSERT_EQ(h.runReference(), "");
  EXPECT_EQ(h.get("B"), (std::vector<double>{-2, -2, 0, 0}));
}

// Issue 7: float -> int32 casts used to wrap (3e9 -> -1294967296, +inf -> -1).
// They saturate to the int32 limits; NaN gives 0 (docs/simulator.md).
TEST(Machine, FloatToInt32CastSaturatesInKernels) {
  Harness h(kernelText("F: T.Tensor((8,), \"float32\"), B: T.Tensor((8,), \"int32\")",
                       "f = T.alloc_shared((8,), \"float32\")\n"
                       "b = T.alloc_shared((8,), \"int32\")\n"
                       "T.copy(F, f)\n"
                       "for i in T.Parallel(8):\n"
                       "    b[i] = T.cast(f[i], \"int32\")\n"
                       "T.copy(b, B)"));
  const double inf = std::numeric_limits<double>::infinity();
  h.set("F", {3e9, -3e9, 1e20, inf, -inf, std::nan(""), 2.5, -2.5});
  ASSERT_EQ(h.runReference(), "");
  EXPECT_EQ(h.get("B"), (std::vector<double>{2147483647, -2147483648.0, 2147483647, 2147483647,
                                             -2147483648.0, 0, 2, -2}));
}

// Issue 7: `T.copy(..., pad_value=x)` was recorded but not applied. A source
// smaller than the destination is lined up from the right; every destination
// element outside the source extents holds x (TileLang fills the unused part
// of the UB tile with the pad value).
TEST(Machine, CopyPadValueFillsTheRestOfTheDestination) {
  Harness h(kernelText("A: T.Tensor((6, 10), \"float32\"), O: T.Tensor((4, 8), \"float32\")",
                       "a = T.alloc_shared((4, 8), \"float32\")\n"
                       "T.fill(a, 1.0)\n"
                       "T.copy(A[2:5, 3:8], a, pad_value=-7.5)\n"
                       "T.copy(a, O)"));
  std::vector<double> in(60);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i) / 4;
  h.set("A", in);
  ASSERT_EQ(h.runReference(), "");
  std::vector<double> expected(32);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c)
      expected[static_cast<size_t>(r * 8 + c)] =
          (r < 3 && c < 5) ? static_cast<double>((r + 2) * 10 + (c + 3)) / 4 : -7.5;
  EXPECT_EQ(h.get("O"), expected);
}

// A 1-D source under a 2-D destination fills the first elements of the last
// row-major dimension; the pad value is converted to the destination dtype.
TEST(Machine, CopyPadValueLinesUpFromTheRightAndConverts) {
  Harness h(kernelText("A: T.Tensor((8,), \"float32\"), O: T.Tensor((2, 4), \"float16\")",
                       "a = T.alloc_shared((2, 4), \"float16\")\n"
                       "T.copy(A[0:3], a, pad_value=0.1)\n"
                       "T.copy(a, O)"));
  h.set("A", {1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_EQ(h.runReference(), "");
  const double p = 0.0999755859375;  // 0.1 in fp16 (round to nearest even)
  EXPECT_EQ(h.get("O"), (std::vector<double>{1, 2, 3, p, p, p, p, p}));
}

// A padded global->UB copy fills each destination row up to its next 32-byte
// boundary (TileLang-Ascend's DataCopyPad): 30 float32 columns pad 30 and 31.
TEST(Machine, PaddedCopyFillsTheRowTailTo32Bytes) {
  Harness h(kernelText("A: T.Tensor((2, 6), \"float32\"), O: T.Tensor((2, 8), \"float32\")",
                       "a = T.alloc_shared((2, 8), \"float32\")\n"
                       "T.copy(A, a[:, 0:6], pad_value=-1.0)\n"
                       "T.copy(a, O)"));
  h.set("A", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  ASSERT_EQ(h.runReference(), "");
  EXPECT_EQ(h.get("O"), (std::vector<double>{1, 2, 3, 4, 5, 6, -1, -1,  //
                                             7, 8, 9, 10, 11, 12, -1, -1}));
}

// data_select=True pads with the register T.ascend_set_copy_pad_value set;
// the padding stops at the end of a row shorter than 32 bytes.
TEST(Machine, DataSelectPadsWithTheRegisterAndStopsAtTheRowEnd) {
  Harness h(kernelText("A: T.Tensor((2, 3), \"float16\"), O: T.Tensor((2, 5), \"float16\")",
                       "a = T.alloc_shared((2, 5), \"float16\")\n"
                       "T.ascend_set_copy_pad_value(7.0, dtype=\"float16\")\n"
                       "T.copy(A, a[:, 0:3], data_select=True)\n"
                       "T.copy(a, O)"));
  h.set("A", {1, 2, 3, 4, 5, 6});
  ASSERT_EQ(h.runReference(), "");
  EXPECT_EQ(h.get("O"), (std::vector<double>{1, 2, 3, 7, 7, 4, 5, 6, 7, 7}));
}

// A copy's global side that runs past the tensor's end is clipped there; the
// UB side loses the same elements (TileLang-Ascend's tail clamping).
TEST(Machine, CopyTailsAreClippedAtTheTensorEnd) {
  Harness h(kernelText("A: T.Tensor((10,), \"float32\"), O: T.Tensor((10,), \"float32\")",
                       "a = T.alloc_shared((8,), \"float32\")\n"
                       "for k in T.serial(2):\n"
                       "    T.copy(A[k * 8 : k * 8 + 8], a)\n"
                       "    for i in T.Parallel(8):\n"
                       "        a[i] = a[i] * 2.0\n"
                       "    T.copy(a, O[k * 8 : k * 8 + 8])"));
  h.set("A", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  ASSERT_EQ(h.runReference(), "");
  EXPECT_EQ(h.get("O"), (std::vector<double>{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}));
}

TEST(Machine, OutOfBoundsNamesBufferIndexAndLine) {
  Harness h(kernelText("A: T.Tensor((8,), \"float32\"), B: T.Tensor((8,), \"float32\")",
                       "a = T.alloc_shared((8,), \"float32\")\n"
                       "T.copy(A, a)\n"
                       "for k in T.serial(2):\n"
                       "    a[max(k * 8, 0)] = 1.0\n"
                       "T.copy(a, B)"));
  std::string err = h.runReference();
  EXPECT_NE(err.find("line 9"), std::string::npos) << err;
  EXPECT_NE(err.find("'a'"), std::string::npos) << err;
  EXPECT_NE(err.find("[8]"), std::string::npos) << err;
}

TEST(Machine, OutOfBoundsCopyRegionIsReported) {
  Harness h(kernelText("A: T.Tensor((8,), \"float32\"), B: T.Tensor((8,), \"float32\")",
                       "a = T.alloc_shared((4,), \"float32\")\n"
                       "for k in T.serial(3):\n"
                       "    T.copy(A[k * 4:k * 4 + 4], a)\n"
                       "T.copy(a, B[0:4])"));
  std::string err = h.runReference();
  EXPECT_NE(err.find("line 8"), std::string::npos) << err;
  EXPECT_NE(err.find("A[8:12]"), std::string::npos) << err;
}

}  // namespace
}  // namespace tilesched::sim::test
