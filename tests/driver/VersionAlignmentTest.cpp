// Versions of a multi-buffered storage start at addresses aligned for their
// scope (the DMA needs 32-byte aligned UB addresses): a 16-byte buffer with
// two versions takes 2 × 32 bytes, its second version starts at byte 32, the
// simulated run still matches the reference, and the lowered file says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/CliTestUtil.h"

namespace tilesched {
namespace {

using testing_cli::cli;
namespace fs = std::filesystem;

const char* kKernel = R"(import tilelang.language as T


@T.prim_func
def kernel(A: T.Tensor((8, 2), "uint16"), OUT: T.Tensor((8, 4), "uint16")):
    with T.Kernel(1):
        ub = T.alloc_shared((4, 2), "uint16")
        T.annotate_buffer_versions({ub: 2})
        for w in T.serial(2):
            T.copy(A[w * 4, 0], ub)
            T.copy(ub[:, :], OUT[w * 4, 0])
)";

TEST(VersionAlignment, EachVersionStartsAlignedAndTheRunStillMatches) {
  fs::path dir = fs::temp_directory_path() / "tilesched_version_alignment";
  fs::create_directories(dir);
  std::ofstream(dir / "k.py") << kKernel;
  auto r = cli(
      {"run", (dir / "k.py").string(), "--emit", "lowered", "--report", (dir / "r.json").string()});
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  std::ifstream in(dir / "r.json");
  auto report = nlohmann::json::parse(in);
  const auto& allocations = report.at("kernels").at(0).at("simulation").at("allocations");
  ASSERT_EQ(allocations.size(), 1u);
  EXPECT_EQ(allocations.at(0).at("name"), "ub");
  EXPECT_EQ(allocations.at(0).at("bytes"), 64);  // 2 versions of 16 bytes, each padded to 32
  EXPECT_EQ(report.at("simulation").at("pass"), true);
  EXPECT_NE(r.out.find("# 'ub': versions start aligned, 32 bytes apart (16 used)"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace tilesched
