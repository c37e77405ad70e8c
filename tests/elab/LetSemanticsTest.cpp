// Name binding in kernel bodies, checked end to end against values computed
// here from the inputs (not from tilesched): TVMScript's let semantics (a plain
// assignment is a new name that lasts to the end of the enclosing loop body,
// branch or VF region), T.alloc_var as the only mutable scalar, and a name
// bound to a T.alloc_var read taking the value at that point. Each kernel runs
// on the reference interpreter and on the cycle simulator as written; both
// must give the closed-form answer (issue 7 section 1).
#include <gtest/gtest.h>

#include <vector>

#include "../sim/SimTestUtil.h"

namespace tilesched::sim::test {
namespace {

// Runs `text` with the given inputs on the reference interpreter and on the
// simulator; returns tensor `out` from each.
struct BothRuns {
  std::vector<double> reference, simulated;
};

BothRuns runBoth(const std::string& text,
                 const std::vector<std::pair<std::string, std::vector<double>>>& inputs,
                 const std::string& out) {
  BothRuns r;
  {
    Harness h(text);
    for (const auto& [name, values] : inputs) h.set(name, values);
    std::string error = h.runReference();
    EXPECT_EQ(error, "");
    r.reference = h.get(out);
  }
  {
    Harness h(text);
    for (const auto& [name, values] : inputs) h.set(name, values);
    SimResult sim = h.simulate();
    EXPECT_TRUE(sim.issues.empty()) << sim.issues.front().message;
    EXPECT_TRUE(sim.races.empty());
    r.simulated = h.get(out);
  }
  return r;
}

// `a = v` with v a T.alloc_var: a snapshot, so the loop computes the exclusive
// prefix sum (the alias gave the inclusive one).
TEST(LetSemantics, AllocVarReadIntoANameIsASnapshot) {
  std::string text = kernelText("A: T.Tensor((4,), \"float32\"), O: T.Tensor((4,), \"float32\")",
                                "v = T.alloc_var(\"float32\")\n"
                                "v = 0.0\n"
                                "for i in T.serial(4):\n"
                                "    a = v\n"
                                "    v = v + A[i]\n"
                                "    O[i] = a\n");
  std::vector<double> a = {1.5, 2.25, -3.0, 4.0};
  std::vector<double> expected(4);
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    expected[i] = sum;
    sum += a[i];
  }
  auto r = runBoth(text, {{"A", a}}, "O");
  EXPECT_EQ(r.reference, expected);
  EXPECT_EQ(r.simulated, expected);
}

// The same through tuple unpacking, and with the alloc_var updated in place
// afterwards: the snapshot keeps the old value.
TEST(LetSemantics, AllocVarSnapshotThroughTupleUnpacking) {
  std::string text = kernelText("A: T.Tensor((2,), \"int32\"), O: T.Tensor((3,), \"int32\")",
                                "v = T.alloc_var(\"int32\", init=A[0])\n"
                                "w = T.alloc_var(\"int32\", init=A[1])\n"
                                "x, y = v, w\n"
                                "v = v * 3\n"
                                "w = v + w\n"
                                "O[0] = x\n"
                                "O[1] = y\n"
                                "O[2] = w\n");
  std::vector<double> a = {5, -7};
  std::vector<double> expected = {a[0], a[1], a[0] * 3 + a[1]};
  auto r = runBoth(text, {{"A", a}}, "O");
  EXPECT_EQ(r.reference, expected);
  EXPECT_EQ(r.simulated, expected);
}

// A plain name re-bound in a loop body: every iteration reads the value from
// before the loop (5, 5, 5, 5 rather than 5, 6, 7, 8); after the loop the name
// has that value too. Inside the body, reads after the re-binding see it.
TEST(LetSemantics, PlainNameReboundInALoopBodyIsLocalToTheIteration) {
  std::string text = kernelText("a: T.Tensor((2,), \"float32\"), o: T.Tensor((9,), \"float32\")",
                                "m = a[0]\n"
                                "for s in T.serial(4):\n"
                                "    o[s] = m\n"
                                "    m = m + 1.0\n"
                                "    o[s + 4] = m\n"
                                "o[8] = m\n");
  std::vector<double> a = {5.0, 0.0};
  std::vector<double> expected(9);
  for (int s = 0; s < 4; ++s) {
    expected[s] = a[0];
    expected[s + 4] = a[0] + 1.0;
  }
  expected[8] = a[0];
  auto r = runBoth(text, {{"a", a}}, "o");
  EXPECT_EQ(r.reference, expected);
  EXPECT_EQ(r.simulated, expected);
}

// The running value written with T.alloc_var does accumulate.
TEST(LetSemantics, AllocVarIsTheRunningValue) {
  std::string text = kernelText("a: T.Tensor((2,), \"float32\"), o: T.Tensor((4,), \"float32\")",
                                "m = T.alloc_var(\"float32\", init=a[0])\n"
                                "for s in T.serial(4):\n"
                                "    o[s] = m\n"
                                "    m = m + 1.0\n");
  std::vector<double> a = {5.0, 0.0};
  std::vector<double> expected = {5.0, 6.0, 7.0, 8.0};
  auto r = runBoth(text, {{"a", a}}, "o");
  EXPECT_EQ(r.reference, expected);
  EXPECT_EQ(r.simulated, expected);
}

// A re-binding inside a run-time branch lasts to the end of the branch; after
// the `if` the name has its value from before. Run with the branch taken and
// not taken.
TEST(LetSemantics, PlainNameReboundInABranchIsLocalToTheBranch) {
  std::string text = kernelText("a: T.Tensor((2,), \"float32\"), o: T.Tensor((3,), \"float32\")",
                                "m = a[0]\n"
                                "o[1] = 0.0\n"
                                "if a[1] > 0.0:\n"
                                "    m = m * 2.0\n"
                                "    o[1] = m\n"
                                "else:\n"
                                "    m = m - 1.0\n"
                                "    o[1] = m\n"
                                "o[0] = m\n"
                                "o[2] = m + 0.5\n");
  for (double flag : {1.0, -1.0}) {
    std::vector<double> a = {3.25, flag};
    std::vector<double> expected = {a[0], flag > 0 ? a[0] * 2.0 : a[0] - 1.0, a[0] + 0.5};
    auto r = runBoth(text, {{"a", a}}, "o");
    EXPECT_EQ(r.reference, expected) << "flag " << flag;
    EXPECT_EQ(r.simulated, expected) << "flag " << flag;
  }
}

// An `if` on a compile-time value is decided while the file is read, as the
// Python `if` it is in TileLang's builder: the taken branch is inlined, so a
// T.alloc_var it declares and a name it re-binds are what the code after it
// sees (upstream's scalar top-k declares its running arg-max this way).
TEST(LetSemantics, CompileTimeBranchBindsInTheEnclosingBody) {
  std::string text = kernelText("a: T.Tensor((2,), \"float32\"), o: T.Tensor((4,), \"float32\")",
                                "mode = 1\n"
                                "m = a[1]\n"
                                "if mode == 2:\n"
                                "    acc = T.alloc_shared((1,), \"float32\")\n"
                                "else:\n"
                                "    acc = T.alloc_var(\"float32\", init=a[0])\n"
                                "    m = m * 2.0\n"
                                "for s in T.serial(3):\n"
                                "    acc = acc + m\n"
                                "    o[s] = acc\n"
                                "o[3] = m\n");
  std::vector<double> a = {1.25, -0.5};
  std::vector<double> expected = {a[0] + 2 * a[1], a[0] + 4 * a[1], a[0] + 6 * a[1], 2 * a[1]};
  auto r = runBoth(text, {{"a", a}}, "o");
  EXPECT_EQ(r.reference, expected);
  EXPECT_EQ(r.simulated, expected);
}

// A loop inside a T.Parallel body is unrolled, but its variable is still a
// run-time loop variable: `if k == 0:` is a branch (a body) like in any loop,
// so its re-binding does not reach the code after it.
TEST(LetSemantics, BranchOnAnUnrolledLoopVariableIsABody) {
  std::string text = kernelText(
      "A: T.Tensor((8,), \"float32\"), B: T.Tensor((8,), \"float32\"), "
      "C: T.Tensor((16,), \"float32\")",
      "a = T.alloc_fragment((8,), \"float32\")\n"
      "b = T.alloc_fragment((8,), \"float32\")\n"
      "c = T.alloc_fragment((16,), \"float32\")\n"
      "T.copy(A, a)\n"
      "T.copy(B, b)\n"
      "for i in T.Parallel(8):\n"
      "    v = a[i]\n"
      "    for k in T.serial(2):\n"
      "        if k == 0:\n"
      "            v = b[i]\n"
      "        c[i * 2 + k] = v\n"
      "T.copy(c, C)\n");
  std::vector<double> a = {1, 2, 3, 4, 5, 6, 7, 8}, b = {-1, -2, -3, -4, -5, -6, -7, -8};
  std::vector<double> expected(16);
  for (int i = 0; i < 8; ++i) expected[2 * i] = expected[2 * i + 1] = a[i];
  auto r = runBoth(text, {{"A", a}, {"B", b}}, "C");
  EXPECT_EQ(r.reference, expected);
  EXPECT_EQ(r.simulated, expected);
}

// A name re-bound inside a VF region and read after it: TileLang's answer is
// the value from before the region, and the reference must agree with the
// simulator (it used the new value, so `run` failed a valid kernel).
TEST(LetSemantics, NameReboundInAVFRegionKeepsItsValueAfterTheRegion) {
  for (const char* vf : {"T.SimdVF()", "T.SimtVF(threads=4)"}) {
    std::string text = kernelText("a: T.Tensor((2,), \"float32\"), o: T.Tensor((2,), \"float32\")",
                                  std::string("m = a[0]\n"
                                              "with ") +
                                      vf +
                                      ":\n"
                                      "    m = m + 3.0\n"
                                      "o[0] = m\n"
                                      "o[1] = m * 2.0\n");
    std::vector<double> a = {1.5, 0.0};
    std::vector<double> expected = {a[0], a[0] * 2.0};
    auto r = runBoth(text, {{"a", a}}, "o");
    EXPECT_EQ(r.reference, expected) << vf;
    EXPECT_EQ(r.simulated, expected) << vf;
  }
}

// Straight-line re-binding in one body still chains (each let sees the last).
TEST(LetSemantics, StraightLineRebindingChains) {
  std::string text = kernelText("a: T.Tensor((2,), \"int32\"), o: T.Tensor((4,), \"int32\")",
                                "m = a[0]\n"
                                "m = m * 3\n"
                                "m = m + a[1]\n"
                                "o[0] = m\n"
                                "for s in T.serial(3):\n"
                                "    k = m + s\n"
                                "    k = k * 2\n"
                                "    o[s + 1] = k\n");
  std::vector<double> a = {4, -9};
  double m = a[0] * 3 + a[1];
  std::vector<double> expected = {m, (m + 0) * 2, (m + 1) * 2, (m + 2) * 2};
  auto r = runBoth(text, {{"a", a}}, "o");
  EXPECT_EQ(r.reference, expected);
  EXPECT_EQ(r.simulated, expected);
}

}  // namespace
}  // namespace tilesched::sim::test
