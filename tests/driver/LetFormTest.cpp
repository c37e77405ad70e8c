// Issue 17 §2: a value named inside a loop body (`off = bx * block_N + s *
// sub_N`) is a fresh register value in every iteration, so the let form of a
// kernel and the same kernel with the offsets written inline must schedule
// and run the same: II, versions, synchronisation and simulated cycles, in
// every mode. The pairs live in bench/kernels (written the way upstream
// authors write kernels), and differ only in the names.
#include <gtest/gtest.h>

#include <string>

#include "Version.h"
#include "driver/Compare.h"
#include "target/Target.h"

namespace tilesched {
namespace {

const Target& target() {
  static const Target t = [] {
    std::string error;
    auto x = loadTarget("ascend950", error);
    if (!x) throw std::runtime_error(error);
    return *x;
  }();
  return t;
}

driver::Comparison compare(const std::string& file) {
  driver::CompareOptions o;
  o.file = std::string(TILESCHED_SOURCE_DIR) + "/bench/kernels/" + file;
  return driver::compareSchedules(o, target());
}

class LetForm : public ::testing::TestWithParam<std::string> {};

TEST_P(LetForm, SchedulesAndRunsLikeTheInlineForm) {
  auto let = compare(GetParam() + "_let.py");
  auto inl = compare(GetParam() + "_inline.py");
  ASSERT_TRUE(let.compiled) << let.diagnostics;
  ASSERT_TRUE(inl.compiled) << inl.diagnostics;
  ASSERT_EQ(let.rows.size(), inl.rows.size());
  for (size_t i = 0; i < let.rows.size(); ++i) {
    const auto& a = let.rows[i];
    const auto& b = inl.rows[i];
    SCOPED_TRACE(a.mode);
    EXPECT_TRUE(a.pass) << a.error;
    EXPECT_TRUE(b.pass) << b.error;
    EXPECT_EQ(a.cycles, b.cycles);
    EXPECT_EQ(a.versions, b.versions);
    EXPECT_EQ(a.flagStall, b.flagStall);
    EXPECT_EQ(a.busy, b.busy);
    ASSERT_EQ(a.loops.size(), b.loops.size());
    for (size_t l = 0; l < a.loops.size(); ++l) {
      EXPECT_EQ(a.loops[l].ii, b.loops[l].ii) << a.loops[l].var;
      EXPECT_EQ(a.loops[l].iiLowerBound, b.loops[l].iiLowerBound) << a.loops[l].var;
    }
  }
  // And auto keeps multi-buffering: never slower than double buffering.
  EXPECT_LE(let.row("auto")->cycles, let.row("double")->cycles);
}

INSTANTIATE_TEST_SUITE_P(BenchKernels, LetForm,
                         ::testing::Values("vec_add", "softmax", "rms_norm", "gemm", "persistent"));

}  // namespace
}  // namespace tilesched
