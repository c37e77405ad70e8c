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

// Inputs as the file makes them (issue 21): the file's own call passes a
// permutation prefix, a range, bounded integers, a constant and zeros; `run`
// fills the parameters with the same kinds of values (so the scatter through
// the permutation has no race), and a note says where each came from.
TEST(RunTimeFacts, InputsTakeTheKindsOfValuesTheFilesCallPasses) {
  TempFile f(
      "import tilelang.language as T\nimport torch\n\n"
      "def scatter(n=8, m=16):\n"
      "    @T.prim_func\n"
      "    def main(idx: T.Tensor((n,), \"int32\"), ramp: T.Tensor((n,), \"int32\"),\n"
      "             lo: T.Tensor((n,), \"int32\"), three: T.Tensor((n,), \"float32\"),\n"
      "             out: T.Tensor((m,), \"float32\"), copies: T.Tensor((4, n), \"float32\")):\n"
      "        with T.Kernel(2) as bx:\n"
      "            for i in T.serial(n // 2):\n"
      "                k = i * 2 + bx\n"
      "                j = T.int32(idx[k])\n"
      "                out[j] = T.cast(ramp[k], \"float32\") + 1.0\n"
      "                copies[0, k] = T.cast(idx[k], \"float32\")\n"
      "                copies[1, k] = T.cast(ramp[k], \"float32\")\n"
      "                copies[2, k] = T.cast(lo[k], \"float32\")\n"
      "                copies[3, k] = three[k]\n"
      "    return main\n\n"
      "if __name__ == \"__main__\":\n"
      "    kernel = scatter()\n"
      "    idx = torch.randperm(16)[:8].int()\n"
      "    ramp = torch.arange(8, dtype=torch.int32)\n"
      "    lo = torch.randint(2, 5, (8,), dtype=torch.int32)\n"
      "    three = torch.full((8,), 3.0)\n"
      "    out = torch.zeros(16)\n"
      "    copies = torch.empty(4, 8)\n"
      "    kernel(idx, ramp, lo, three, out, copies)\n",
      "file_inputs.py");
  fs::path dir = fs::temp_directory_path() / (std::to_string(::getpid()) + "_file_inputs_out");
  CliRun r = cli({"run", f.str(), "--output-dir", dir.string()});
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("races 0"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(":28:5: note: kernel 'main' runs on inputs of the kinds the file's call at "
                       "line 28 passes: 'idx' from torch.randperm, 'ramp' from torch.arange, 'lo' "
                       "from torch.randint, 'three' from torch.full, 'out' from torch.zeros; "
                       "--input NAME=FILE.npy overrides them"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(":22:11: note: 'idx' is made here (torch.randperm)"), std::string::npos)
      << r.err;
  std::string error;
  auto copies = sim::readNpy((dir / "copies.npy").string(), error);
  auto out = sim::readNpy((dir / "out.npy").string(), error);
  ASSERT_TRUE(copies && out) << error;
  auto at = [](const sim::NpyArray& a, size_t i) {
    float v;
    std::memcpy(&v, a.data.data() + 4 * i, 4);
    return v;
  };
  std::vector<bool> seen(16, false);
  for (size_t k = 0; k < 8; ++k) {
    float idx = at(*copies, k);
    ASSERT_GE(idx, 0.0f);
    ASSERT_LT(idx, 16.0f);
    EXPECT_FALSE(seen[static_cast<size_t>(idx)]) << "index " << idx << " repeats";
    seen[static_cast<size_t>(idx)] = true;
    EXPECT_EQ(at(*copies, 8 + k), static_cast<float>(k));  // arange
    EXPECT_GE(at(*copies, 16 + k), 2.0f);                  // randint(2, 5)
    EXPECT_LT(at(*copies, 16 + k), 5.0f);
    EXPECT_EQ(at(*copies, 24 + k), 3.0f);  // full
  }
  // out: zeros where no index points, ramp + 1 where one does.
  for (size_t e = 0; e < 16; ++e) {
    float want = 0.0f;
    for (size_t k = 0; k < 8; ++k)
      if (static_cast<size_t>(at(*copies, k)) == e) want = static_cast<float>(k) + 1.0f;
    EXPECT_EQ(at(*out, e), want) << "out[" << e << "]";
  }
  fs::remove_all(dir);
}
