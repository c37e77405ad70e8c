// What the run checks once the values are known (issue 21): a T.assume about
// values the kernel computes, where it stands; the strides of a
// T.StridedTensor (dense when a T.dynamic stride has no value, refused when
// they overlap).
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/CliTestUtil.h"
#include "sim/Npy.h"

using namespace tilesched;
using testing_cli::cli;
using testing_cli::CliRun;
namespace fs = std::filesystem;

namespace {

struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& text, const std::string& name) {
    path = fs::temp_directory_path() / (std::to_string(::getpid()) + "_" + name);
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { fs::remove(path); }
  std::string str() const { return path.string(); }
};

std::string int32Npy(const std::string& name, const std::vector<int32_t>& values) {
  sim::NpyArray a;
  a.descr = "<i4";
  a.shape = {static_cast<int64_t>(values.size())};
  a.data.resize(values.size() * 4);
  std::memcpy(a.data.data(), values.data(), a.data.size());
  std::string path =
      (fs::temp_directory_path() / (std::to_string(::getpid()) + "_" + name)).string();
  std::string error;
  EXPECT_TRUE(sim::writeNpy(path, a, error)) << error;
  return path;
}

const char* kGather =
    "import tilelang.language as T\n\n@T.prim_func\n"
    "def main(I: T.Tensor((2,), \"int32\"), A: T.Tensor((32,), \"float32\"),\n"
    "         B: T.Tensor((16,), \"float32\")):\n"
    "    with T.Kernel(2) as bx:\n"
    "        a = T.alloc_shared((8,), \"float32\")\n"
    "        idx = T.int32(I[bx])\n"
    "        T.assume(0 <= idx < 4)\n"
    "        T.copy(A[idx * 8 : idx * 8 + 8], a)\n"
    "        T.copy(a, B[bx * 8 : bx * 8 + 8])\n";

}  // namespace

TEST(RunTimeFacts, AssumptionAboutALoadedValueIsCheckedWhereItStands) {
  TempFile f(kGather, "assume_loaded.py");
  std::string good = int32Npy("good_idx.npy", {3, 0});
  std::string bad = int32Npy("bad_idx.npy", {1, 7});
  CliRun ok = cli({"run", f.str(), "--input", "I=" + good});
  EXPECT_EQ(ok.code, 0) << ok.err;
  CliRun r = cli({"run", f.str(), "--input", "I=" + bad});
  EXPECT_EQ(r.code, 3) << r.err;
  // Block 1 loads 7: the message gives the value and the block, at the line.
  std::string want = f.str() +
                     ":9:9: error: run-time error: T.assume(0 <= idx and idx < 4) is false in "
                     "this run (idx = 7; block 1); the kernel was compiled on the assumption "
                     "that it holds\n        T.assume(0 <= idx < 4)\n";
  EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
  // The printed IR keeps it where the author wrote it.
  CliRun ir = cli({"compile", f.str(), "--emit", "ir"});
  EXPECT_NE(ir.out.find("        idx = I[bx]\n        T.assume(0 <= idx and idx < 4)\n"),
            std::string::npos)
      << ir.out;
  fs::remove(good);
  fs::remove(bad);
}

const char* kStrided =
    "import tilelang.language as T\n\nst = T.dynamic(\"st\")\n\n@T.prim_func\n"
    "def main(X: T.StridedTensor((4, 8), (st, 1), \"float32\"), Y: T.Tensor((4, 8), "
    "\"float32\")):\n"
    "    T.assume(st == 8)\n"
    "    with T.Kernel(1) as bx:\n"
    "        x = T.alloc_shared((4, 8), \"float32\")\n"
    "        T.copy(X, x)\n"
    "        T.copy(x, Y)\n";

TEST(RunTimeFacts, DynamicStrideWithoutAValueIsDense) {
  TempFile f(kStrided, "strided_dense.py");
  // st takes 8, the dense stride of dimension 0: the assumption holds.
  CliRun r = cli({"run", f.str()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("output Y: matches the reference bit for bit (32 elements)"),
            std::string::npos)
      << r.out;
  // -D gives it another value, a constant: the assumption is false at compile time.
  CliRun padded = cli({"compile", f.str(), "-D", "st=16"});
  EXPECT_EQ(padded.code, 1) << padded.err;
  EXPECT_NE(padded.err.find(":7:14: error: this T.assume condition is false"), std::string::npos)
      << padded.err;
  // A stride that makes rows overlap is refused where the tensor is declared.
  CliRun overlap = cli({"compile", f.str(), "-D", "st=4"});
  EXPECT_EQ(overlap.code, 1);
  EXPECT_NE(overlap.err.find(":6:13: error: strides (4, 1) make two elements of shape (4, 8) "
                             "share an address; overlapping strides are not supported yet"),
            std::string::npos)
      << overlap.err;
}

TEST(RunTimeFacts, OverlappingStridesKnownOnlyInTheRunAreRefused) {
  TempFile f(
      "import tilelang.language as T\n\n@T.prim_func\n"
      "def main(s: T.int32, X: T.StridedTensor((4, 8), (s, 1), \"float32\"),\n"
      "         Y: T.Tensor((4, 8), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n"
      "        x = T.alloc_shared((4, 8), \"float32\")\n"
      "        T.copy(X, x)\n"
      "        T.copy(x, Y)\n",
      "strided_param.py");
  CliRun ok = cli({"run", f.str(), "--input", "s=12"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  CliRun r = cli({"run", f.str(), "--input", "s=3"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("'X' has strides (3, 1) for its shape (4, 8): two elements share an "
                       "address; overlapping strides are not supported yet"),
            std::string::npos)
      << r.err;
}
