// Hostile and extreme inputs (issue 11), through the CLI in-process
// (driver::runCli): deep nesting, empty files and kernels, kernels without a
// loop, huge buffers, unknown target fields, forced 1 ms solver budgets and
// --input files of the wrong shape, dtype or format. Each must end in a clear
// message (or a valid result) with a documented exit code; none may crash,
// hang or report an internal error.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "Version.h"
#include "common/CliTestUtil.h"
#include "driver/Driver.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

using testing_cli::cli;
using testing_cli::CliRun;

// A scratch file that removes itself.
struct TempFile {
  fs::path path;
  TempFile(const std::string& text, const std::string& name) {
    path = fs::temp_directory_path() / (std::to_string(::getpid()) + "_hostile_" + name);
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { fs::remove(path); }
  std::string str() const { return path.string(); }
};

using testing_cli::example;

// A one-block kernel over a 64-element float32 tensor with `body` (indented
// 12 spaces) inside `with T.Kernel(...)`.
std::string kernel(const std::string& body, const std::string& shape = "64",
                   const std::string& grid = "1") {
  return "import tilelang.language as T\n\n\ndef k():\n    @T.prim_func\n"
         "    def main(A: T.Tensor((" +
         shape + ",), \"float32\")):\n        with T.Kernel(" + grid + ", is_npu=True) as bx:\n" +
         body + "\n    return main\n";
}

// An NPY v1.0 file written by hand (magic, header length, padded dict).
std::string npy(const std::string& descr, const std::string& shape, size_t dataBytes,
                bool fortran = false) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shape + ", }";
  size_t total = 10 + dict.size() + 1;
  dict += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict + std::string(dataBytes, '\0');
}

// A clean failure: the expected exit code, the message, no internal error.
void expectClean(const CliRun& r, int code, const std::string& message) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

TEST(Hostile, DeeplyNestedExpressionsAreBounded) {
  std::string pow = "x = 1";
  for (int i = 0; i < 100000; ++i) pow += " ** 1";  // overflowed the stack before
  std::string sum = "x = 1";
  for (int i = 0; i < 100000; ++i) sum += " + 1";
  const std::vector<std::string> exprs = {
      "x = " + std::string(100000, '(') + "1" + std::string(100000, ')'),
      "x = " + std::string(100000, '[') + std::string(100000, ']'),
      "x = " + std::string(100000, '-') + "1",
      "x = " + std::string(100000, '~') + "1",
      pow,
      sum,
  };
  for (const auto& e : exprs) {
    TempFile f(kernel("            " + e), "deep_expr.py");
    expectClean(cli({"compile", f.str()}), driver::kExitCompileError,
                "error: expression nested too deeply");
  }
}

TEST(Hostile, DeeplyNestedLoopsAreBounded) {
  std::string body, indent = "            ";
  for (int i = 0; i < 3000; ++i) {
    body += indent + "for i" + std::to_string(i) + " in T.serial(1):\n";
    indent += "    ";
  }
  body += indent + "x = 1";
  TempFile f(kernel("            a = T.alloc_ub((64,), \"float32\")\n" + body), "deep_loops.py");
  expectClean(cli({"compile", f.str()}), driver::kExitCompileError,
              "error: too many levels of indentation");
}

TEST(Hostile, EmptyFileAndGarbage) {
  TempFile empty("", "empty.py");
  expectClean(cli({"compile", empty.str()}), driver::kExitCompileError,
              "no @T.prim_func kernel found");
  TempFile binary(std::string("\x00\xff\xfe\x01\x80\n\t\r", 8) + std::string(1000, '\xc3'),
                  "binary.py");
  CliRun r = cli({"compile", binary.str()});
  EXPECT_EQ(r.code, driver::kExitCompileError) << r.err;
  EXPECT_NE(r.err.find("error:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

TEST(Hostile, EmptyKernelCompilesAndRuns) {
  TempFile f(kernel("            pass"), "empty_kernel.py");
  CliRun c = cli({"compile", f.str(), "--emit", "schedule"});
  EXPECT_EQ(c.code, driver::kExitOk) << c.err;
  CliRun r = cli({"run", f.str()});
  EXPECT_EQ(r.code, driver::kExitOk) << r.err;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
}

TEST(Hostile, KernelWithoutALoopCompilesAndRuns) {
  TempFile f(kernel("            a = T.alloc_ub((64,), \"float32\")\n"
                    "            T.copy(A, a)\n"
                    "            for i in T.Parallel(64):\n"
                    "                a[i] = a[i] + a[i]\n"
                    "            T.copy(a, A)"),
             "no_loop.py");
  CliRun c = cli({"compile", f.str(), "--emit", "schedule"});
  EXPECT_EQ(c.code, driver::kExitOk) << c.err;
  CliRun r = cli({"run", f.str()});
  EXPECT_EQ(r.code, driver::kExitOk) << r.err;
  EXPECT_NE(r.out.find("matches the reference bit for bit (64 elements)"), std::string::npos)
      << r.out;
}

TEST(Hostile, HugeOnChipBufferIsACapacityError) {
  TempFile f(kernel("            a = T.alloc_ub((1 << 20,), \"float32\")\n"
                    "            T.copy(A, a[0:64])"),
             "huge_ub.py");
  expectClean(cli({"compile", f.str()}), driver::kExitCompileError,
              "needs at least 4194304 bytes with one version of every buffer");
}

// On-chip extents of 2^31 and more are int64 constants: they once wrapped to
// int32 (`T.alloc_ub((1 << 40,), ...)` had size 0, 1 << 31 had size
// -2147483648), so the error was a bogus out-of-bounds region instead of the
// capacity error with the true byte count.
TEST(Hostile, HugeOnChipExtentIsNotWrapped) {
  for (int bits : {31, 32, 40}) {
    TempFile f(kernel("            a = T.alloc_ub((1 << " + std::to_string(bits) +
                      ",), \"float32\")\n"
                      "            T.copy(A, a[0:64])"),
               "huge_ub" + std::to_string(bits) + ".py");
    // 4-byte elements: 2^(bits + 2) bytes, located at the allocation (line 8, col 17).
    expectClean(cli({"compile", f.str()}), driver::kExitCompileError,
                f.str() + ":8:17: error: scope 'shared' needs at least " +
                    std::to_string(int64_t(1) << (bits + 2)) +
                    " bytes with one version of every buffer but its capacity is");
  }
  // A view wider than 2^31 elements is not wrapped either: it is larger than its storage.
  TempFile v(kernel("            a = T.alloc_ub((64,), \"float32\")\n"
                    "            b = T.view(a, (1 << 32,))\n"
                    "            T.copy(A, a)"),
             "huge_view.py");
  expectClean(
      cli({"compile", v.str()}), driver::kExitCompileError,
      v.str() + ":9:17: error: view of 17179869184 bytes is larger than the 256 bytes of 'a'");
}

// Unlimited on-chip memory lets a huge buffer compile; `run` refuses it at
// its declaration before allocating anything (it once took 16 GB of memory
// for a 2^31-element buffer, or ended in std::bad_alloc).
TEST(Hostile, HugeUnlimitedOnChipBufferIsAClearRunError) {
  for (int bits : {31, 40}) {
    TempFile f(kernel("            a = T.alloc_ub((1 << " + std::to_string(bits) +
                      ",), \"float32\")\n"
                      "            T.annotate_unlimit_memory(\"shared\")\n"
                      "            T.copy(A, a[0:64])"),
               "huge_unlimited" + std::to_string(bits) + ".py");
    EXPECT_EQ(cli({"compile", f.str()}).code, driver::kExitOk);
    expectClean(cli({"run", f.str()}), driver::kExitRunFailed,
                f.str() + ":8:17: error: cannot simulate: 'a' of shape (" +
                    std::to_string(int64_t(1) << bits) + ",) float32 needs " +
                    std::to_string(int64_t(1) << (bits + 2)) +
                    " bytes, beyond the simulator, which holds at most 1073741824 bytes (1 GiB) "
                    "per kernel; use a smaller shape to run it\n");
  }
}

TEST(Hostile, UnknownTargetFieldIsAUsageError) {
  std::ifstream in(std::string(TILESCHED_SOURCE_DIR) + "/targets/ascend950.json");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string json = ss.str();
  auto brace = json.find('{');
  ASSERT_NE(brace, std::string::npos);
  json.insert(brace + 1, "\"bogus_field\": 1, ");
  TempFile t(json, "target.json");
  expectClean(cli({"compile", example("vec_add"), "--target", t.str()}), driver::kExitUsage,
              "unknown field 'bogus_field'");
  TempFile broken("{\"name\": ", "broken_target.json");
  CliRun r = cli({"compile", example("vec_add"), "--target", broken.str()});
  EXPECT_EQ(r.code, driver::kExitUsage) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

TEST(Hostile, OneMillisecondSolverBudgetStillSchedules) {
  for (const char* name : {"vec_add", "gemm_l1", "softmax"}) {
    CliRun r = cli({"compile", example(name), "--emit", "schedule", "--solver-timeout-ms", "1"});
    EXPECT_EQ(r.code, driver::kExitOk) << name << "\n" << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  }
}

TEST(Hostile, InputFilesOfTheWrongShapeDtypeOrFormat) {
  // vec_add's default A is float32 (16384,).
  TempFile shape(npy("<f4", "(7,)", 7 * 4), "shape.npy");
  expectClean(cli({"run", example("vec_add"), "--input", "A=" + shape.str()}), driver::kExitUsage,
              "the file holds 7 elements, but 'A' has 16384");
  TempFile dtype(npy("<f8", "(16384,)", 16384 * 8), "dtype.npy");
  expectClean(cli({"run", example("vec_add"), "--input", "A=" + dtype.str()}), driver::kExitUsage,
              "'A' is float32");
  TempFile truncated(npy("<f4", "(16384,)", 100), "truncated.npy");
  CliRun t = cli({"run", example("vec_add"), "--input", "A=" + truncated.str()});
  EXPECT_EQ(t.code, driver::kExitUsage) << t.err;
  EXPECT_EQ(t.err.find("internal error"), std::string::npos) << t.err;
  TempFile garbage("\x93NUMPY garbage", "garbage.npy");
  CliRun g = cli({"run", example("vec_add"), "--input", "A=" + garbage.str()});
  EXPECT_EQ(g.code, driver::kExitUsage) << g.err;
  EXPECT_EQ(g.err.find("internal error"), std::string::npos) << g.err;
  TempFile fortran(npy("<f4", "(128, 128)", 16384 * 4, true), "fortran.npy");
  expectClean(cli({"run", example("vec_add"), "--input", "A=" + fortran.str()}), driver::kExitUsage,
              "Fortran order");
  TempFile ok(npy("<f4", "(16384,)", 16384 * 4), "ok.npy");
  expectClean(cli({"run", example("vec_add"), "--input", "Z=" + ok.str()}), driver::kExitUsage,
              "no parameter 'Z'");
}

// `run` holds at most 1 GiB of simulated memory, 65536 blocks and 2^24
// iterations of any loop per kernel (docs/simulator.md "Limits"), checked before anything is
// allocated. A 2^40-element global tensor once ended in "internal error: std::bad_alloc" and a
// 2^40-block grid simulated for hours. `compile` has no such limits.
TEST(Hostile, HugeGlobalTensorIsAClearRunError) {
  TempFile f(kernel("            a = T.alloc_ub((64,), \"float32\")\n"
                    "            T.copy(A[0:64], a)",
                    "1 << 40"),
             "huge_shape.py");
  EXPECT_EQ(cli({"compile", f.str()}).code, driver::kExitOk);
  // Located at the parameter (line 6, col 14).
  expectClean(cli({"run", f.str()}), driver::kExitRunFailed,
              f.str() +
                  ":6:14: error: cannot simulate: 'A' of shape (1099511627776,) float32 needs "
                  "4398046511104 bytes, beyond the simulator, which holds at most 1073741824 "
                  "bytes (1 GiB) per kernel; use a smaller shape to run it\n");
  // 1 GiB exactly runs (not simulated here: it is slow); one buffer more crosses the limit.
  TempFile sum(kernel("            a = T.alloc_ub((64,), \"float32\")\n"
                      "            T.copy(A[0:64], a)",
                      "1 << 28"),
               "limit_sum.py");
  expectClean(cli({"run", sum.str()}), driver::kExitRunFailed,
              sum.str() +
                  ":8:17: error: cannot simulate: 'a' of shape (64,) float32 brings the kernel to "
                  "1073742080 bytes, beyond the simulator");
}

// Global tensors beyond 1 GiB (up to 64 GiB) do not stop `run`: it runs the
// first and last block on demand-paged memory and says so (docs/simulator.md
// "Sampled runs"); B = 2 * A checked on the 2 pages of B those blocks wrote.
TEST(Hostile, HugeGlobalTensorsRunSampled) {
  TempFile f(
      "import tilelang.language as T\n\n\ndef k():\n    @T.prim_func\n"
      "    def main(A: T.Tensor((1 << 29,), \"float32\"), B: T.Tensor((1 << 29,), "
      "\"float32\")):\n"
      "        with T.Kernel(1024, is_npu=True) as bx:\n"
      "            a = T.alloc_ub((64,), \"float32\")\n"
      "            T.copy(A[bx * 64:bx * 64 + 64], a)\n"
      "            for j in T.Parallel(64):\n"
      "                a[j] = a[j] * 2.0\n"
      "            T.copy(a, B[bx * 64:bx * 64 + 64])\n"
      "    return main\n",
      "sampled.py");
  fs::path report = fs::temp_directory_path() / (std::to_string(::getpid()) + "_sampled.json");
  CliRun r = cli({"run", f.str(), "--report", report.string()});
  ASSERT_EQ(r.code, driver::kExitOk) << r.out << r.err;
  EXPECT_NE(r.out.find("  sampled run: the global tensors need 4294967296 bytes, beyond the "
                       "simulator's 1 GiB, so only blocks 0 and 1023 of 1024 ran (reference and "
                       "simulation), on global memory filled where they touch it; the figures "
                       "and checks below are for those blocks\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  2 of 1024 blocks on 1024 cores (1 wave): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  output B: matches the reference bit for bit (2048 of 536870912 "
                       "elements, those in the pages the blocks touched)\n"),
            std::string::npos)
      << r.out;
  std::ifstream in(report);
  std::stringstream json;
  json << in.rdbuf();
  EXPECT_NE(json.str().find("\"sampled_blocks\": [\n"), std::string::npos);
  EXPECT_NE(json.str().find("\"compared\": 2048"), std::string::npos);
  fs::remove(report);
  // Whole output tensors do not exist to write.
  fs::path out = fs::temp_directory_path() / (std::to_string(::getpid()) + "_sampled_out");
  expectClean(cli({"run", f.str(), "--output-dir", out.string()}), driver::kExitUsage,
              "--output-dir: 'k' ran sampled (its global tensors exceed the simulator's 1 GiB), "
              "so there are no whole output tensors to write");
  fs::remove_all(out);
}

// In a sampled run a dynamic tensor is only reserved, but its size still
// counts: beyond 64 GiB of global tensors it is a usage error (it once ended
// in std::bad_alloc, or reserved 16 TiB).
TEST(Hostile, HugeDynamicShapeInASampledRunIsAUsageError) {
  TempFile f(
      "import tilelang.language as T\n\n\ndef k():\n    m = T.dynamic(\"m\")\n\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((1 << 28,), \"float32\"), B: T.Tensor((1 << 28,), \"float32\"), "
      "D: T.Tensor((m,), \"float32\"), C: T.Tensor((m, m), \"float32\")):\n"
      "        with T.Kernel(4, is_npu=True) as bx:\n"
      "            a = T.alloc_ub((64,), \"float32\")\n"
      "            T.copy(A[bx * 64:bx * 64 + 64], a)\n"
      "            T.copy(a, B[bx * 64:bx * 64 + 64])\n"
      "    return main\n",
      "sampled_dyn.py");
  TempFile in(npy("<f4", "(4194304,)", 4194304 * 4), "sampled_dyn.npy");
  expectClean(cli({"run", f.str(), "--input", "D=" + in.str()}), driver::kExitUsage,
              "'C' of shape (4194304, 4194304) needs 70368744177664 bytes with the dynamic sizes "
              "of the --input files; the simulator holds at most 68719476736 bytes (64 GiB of "
              "global tensors in a sampled run) per kernel");
  TempFile small(npy("<f4", "(64,)", 64 * 4), "sampled_dyn_small.npy");
  CliRun ok = cli({"run", f.str(), "--input", "D=" + small.str()});
  EXPECT_EQ(ok.code, driver::kExitOk) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("sampled run:"), std::string::npos) << ok.out;
}

TEST(Hostile, HugeGridIsAClearRunError) {
  for (const std::string grid : {"1 << 40", "65537"}) {
    TempFile f(kernel("            a = T.alloc_ub((64,), \"float32\")\n"
                      "            T.copy(A, a)",
                      "64", grid),
               "huge_grid.py");
    EXPECT_EQ(cli({"compile", f.str()}).code, driver::kExitOk);
    // Located at the grid argument (line 7, col 23).
    expectClean(cli({"run", f.str()}), driver::kExitRunFailed,
                f.str() + ":7:23: error: cannot simulate: a grid of " +
                    (grid == "65537" ? std::string("65537") : std::to_string(int64_t(1) << 40)) +
                    " blocks is beyond the simulator, which runs at most 65536 blocks per kernel; "
                    "use a smaller grid to run it\n");
  }
}

// A loop of 2^40 iterations once simulated for hours; the limit counts a
// loop's iterations over the grid and its enclosing loops.
TEST(Hostile, HugeLoopIsAClearRunError) {
  for (const std::string trips : {"1 << 40", "(1 << 22) + 1"}) {
    TempFile f(kernel("            a = T.alloc_ub((64,), \"float32\")\n"
                      "            for j in T.serial(2):\n"
                      "                for i in T.Pipelined(" +
                          trips +
                          ", num_stages=2):\n"
                          "                    T.copy(A, a)",
                      "64", "2"),
               "huge_loop.py");
    EXPECT_EQ(cli({"compile", f.str()}).code, driver::kExitOk);
    // 2 blocks x 2 outer iterations x trips, located at the inner loop (line 10, col 17).
    int64_t total = 4 * (trips == "1 << 40" ? int64_t(1) << 40 : (int64_t(1) << 22) + 1);
    expectClean(cli({"run", f.str()}), driver::kExitRunFailed,
                f.str() + ":10:17: error: cannot simulate: this loop runs " +
                    std::to_string(total) +
                    " times over the grid and the enclosing loops, beyond the simulator, which "
                    "runs at most 16777216 loop iterations per kernel; use smaller trip counts to "
                    "run it\n");
  }
}

// Dynamic shapes are sized from the --input files; a second tensor whose shape
// squares that size is refused before it is allocated (a usage error: the
// sizes come from the command line).
TEST(Hostile, HugeDynamicShapeFromAnInputIsAUsageError) {
  TempFile f(
      "import tilelang.language as T\n\n\ndef k():\n    m = T.dynamic(\"m\")\n\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((m,), \"float32\"), B: T.Tensor((m, m, m), \"float32\")):\n"
      "        with T.Kernel(1, is_npu=True) as bx:\n"
      "            a = T.alloc_ub((64,), \"float32\")\n"
      "            T.copy(A[0:64], a)\n"
      "    return main\n",
      "dyn.py");
  TempFile in(npy("<f4", "(4096,)", 4096 * 4), "dyn.npy");
  expectClean(cli({"run", f.str(), "--input", "A=" + in.str()}), driver::kExitUsage,
              "'B' of shape (4096, 4096, 4096) needs 274877906944 bytes with the dynamic sizes of "
              "the --input files; the simulator holds at most 1073741824 bytes (1 GiB) per kernel");
}

}  // namespace
}  // namespace tilesched
