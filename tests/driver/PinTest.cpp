// `tilesched pin` (issue 17 §3): the author's file with the chosen version
// map written into it, as a minimal edit; compiling the pinned file gives the
// same versions, schedule and cycles; pinning it again changes nothing.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/CliTestUtil.h"
#include "driver/Compare.h"
#include "driver/PinCommand.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;
using testing_cli::cli;

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path source(const std::string& rel) { return fs::path(TILESCHED_SOURCE_DIR) / rel; }
fs::path pinDir() { return fs::path(TILESCHED_TEST_DATA_DIR) / "pin"; }

struct Golden {
  std::string input;   // relative to the source tree
  std::string golden;  // in tests/driver/pin
};

class PinGolden : public ::testing::TestWithParam<Golden> {};

TEST_P(PinGolden, WritesTheMapIntoTheFileAndNothingElse) {
  auto r = cli({"pin", source(GetParam().input).string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, readAll(pinDir() / GetParam().golden));
  // Pinning the pinned file is a fixed point.
  auto again = cli({"pin", (pinDir() / GetParam().golden).string()});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out, r.out);
}

INSTANTIATE_TEST_SUITE_P(
    Files, PinGolden,
    ::testing::Values(
        // No call yet: one inserted after the last allocation.
        Golden{"examples/vec_add.py", "vec_add.pinned.py"},
        // An existing call's dict replaced, modes kept ((2, "counter"), (3, "iteration")).
        Golden{"examples/annotate_versions.py", "annotate_versions.pinned.py"},
        // An upstream-style file: factory, named offsets, __main__ test code, and
        // the num_stages notes explain gives.
        Golden{"bench/kernels/gemm_kloop_l1.py", "gemm_kloop_l1.pinned.py"},
        // Two factories, a multi-line allocation with brackets in a comment and a
        // string, an existing mode-only entry, pytest code after them.
        Golden{"tests/driver/pin/two_factories.py", "two_factories.pinned.py"}),
    [](const auto& info) {
      std::string name = fs::path(info.param.golden).stem().stem().string();
      for (auto& c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

const Target& target() {
  static const Target t = [] {
    std::string error;
    auto x = loadTarget("ascend950", error);
    if (!x) throw std::runtime_error(error);
    return *x;
  }();
  return t;
}

class PinRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(PinRoundTrip, ThePinnedFileSchedulesAndRunsTheSame) {
  fs::path out = fs::temp_directory_path() / (std::to_string(::getpid()) + "_pinned_" +
                                              fs::path(GetParam()).filename().string());
  auto r = cli({"pin", source(GetParam()).string(), "-o", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  driver::CompareOptions a, b;
  a.file = source(GetParam()).string();
  b.file = out.string();
  auto before = driver::compareSchedules(a, target());
  auto after = driver::compareSchedules(b, target());
  fs::remove(out);
  ASSERT_TRUE(before.compiled) << before.diagnostics;
  ASSERT_TRUE(after.compiled) << after.diagnostics;
  const auto* x = before.row("auto");
  const auto* y = after.row("auto");
  ASSERT_TRUE(x && y);
  EXPECT_EQ(x->pass, y->pass) << y->error;
  EXPECT_EQ(x->cycles, y->cycles);
  EXPECT_EQ(x->versions, y->versions);
  ASSERT_EQ(x->loops.size(), y->loops.size());
  for (size_t i = 0; i < x->loops.size(); ++i) EXPECT_EQ(x->loops[i].ii, y->loops[i].ii);
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, PinRoundTrip,
    ::testing::Values("examples/annotate_versions.py", "examples/gemm_l0.py", "examples/gemm_l1.py",
                      "examples/manual_flat_ring.py", "examples/persistent_tiles.py",
                      "examples/ring_buffer.py", "examples/rms_norm.py", "examples/softmax.py",
                      "examples/vec_add.py", "examples/vf_region.py", "bench/kernels/gemm_let.py",
                      "bench/kernels/tile_decode_bias.py", "bench/kernels/silu_stream3.py",
                      "bench/kernels/row_l2norm_guarded.py", "bench/kernels/persistent_uneven.py",
                      "tests/driver/pin/two_factories.py"),
    [](const auto& info) {
      std::string name = fs::path(info.param).stem().string();
      for (auto& c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

TEST(Pin, UsageAndCompileErrors) {
  auto both = cli({"pin", source("examples/vec_add.py").string(), "-o", "/tmp/x.py", "--in-place"});
  EXPECT_EQ(both.code, 2) << both.err;
  auto missing = cli({"pin", "/nonexistent/kernel.py"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("cannot read '/nonexistent/kernel.py'"), std::string::npos)
      << missing.err;
  fs::path bad = fs::temp_directory_path() / (std::to_string(::getpid()) + "_pin_bad.py");
  {
    std::ofstream f(bad);
    f << "import tilelang.language as T\n\n@T.prim_func\ndef main(A: T.Tensor((8,), "
         "\"float32\")):\n"
         "    with T.Kernel(1) as bx:\n        a = T.alloc_ub((8,), \"float32\")\n"
         "        T.copy(A, b)\n";
  }
  auto err = cli({"pin", bad.string()});
  fs::remove(bad);
  EXPECT_EQ(err.code, 1);
  EXPECT_NE(err.err.find("name 'b' is not defined"), std::string::npos) << err.err;
  EXPECT_TRUE(err.out.empty());
}

TEST(Pin, InPlaceRewritesTheFile) {
  fs::path file = fs::temp_directory_path() / (std::to_string(::getpid()) + "_pin_vec_add.py");
  fs::copy_file(source("examples/vec_add.py"), file, fs::copy_options::overwrite_existing);
  auto r = cli({"pin", file.string(), "--in-place"});
  std::string pinned = readAll(file);
  fs::remove(file);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(pinned, readAll(pinDir() / "vec_add.pinned.py"));
}

TEST(SourceEdits, ApplyInAnyOrder) {
  std::string text = "abcdef";
  EXPECT_EQ(driver::applySourceEdits(text, {{1, 2, "X"}, {4, 4, "YY"}, {0, 0, "<"}}), "<aXcdYYef");
}

}  // namespace
}  // namespace tilesched
