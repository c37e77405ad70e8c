// Printing then re-parsing gives the same IR (TVM's round-trip tests): print
// every example, compile the printed text, print again and compare. The
// header comment of each kernel names the source file and factory, which the
// printed file no longer has, so it is left out of the comparison.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "ElabTestUtil.h"
#include "Version.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

std::string withoutHeaders(const std::string& ir) {
  std::istringstream in(ir);
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("# kernel ", 0) != 0) out += line + "\n";
  return out;
}

void expectRoundTrip(const std::string& text, const std::string& what) {
  auto first = testing::compile(text, {}, what);
  ASSERT_TRUE(first.program) << first.rendered();
  std::string printed = first.ir();
  auto second = testing::compile(printed, {}, "printed.py");
  ASSERT_TRUE(second.program) << "the printed IR of " << what << " does not compile:\n"
                              << second.rendered() << "\n"
                              << printed;
  EXPECT_TRUE(second.diags->all().empty()) << second.rendered();
  EXPECT_EQ(withoutHeaders(printed), withoutHeaders(second.ir())) << what;
  ASSERT_EQ(first.program->kernels.size(), second.program->kernels.size());
  for (size_t i = 0; i < first.program->kernels.size(); ++i) {
    const auto& a = first.program->kernels[i];
    const auto& b = second.program->kernels[i];
    EXPECT_EQ(a.grid, b.grid);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.launch, b.launch);
    EXPECT_EQ(a.numLaunches, b.numLaunches);
    EXPECT_EQ(a.buffers.size(), b.buffers.size());
    EXPECT_EQ(a.storages.size(), b.storages.size());
    EXPECT_EQ(a.hasSimtVF, b.hasSimtVF);
    EXPECT_EQ(a.annotations.bufferVersions.size(), b.annotations.bufferVersions.size());
    EXPECT_EQ(a.annotations.manual.size(), b.annotations.manual.size());
    EXPECT_EQ(a.annotations.unlimited, b.annotations.unlimited);
  }
}

std::vector<std::string> examples() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(TILESCHED_SOURCE_DIR) / "examples"))
    if (e.path().extension() == ".py") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, PrintReparsePrint) {
  std::string rel = "examples/" + GetParam() + ".py";
  expectRoundTrip(testing::readFile(std::string(TILESCHED_SOURCE_DIR) + "/" + rel), rel);
}

INSTANTIATE_TEST_SUITE_P(Examples, RoundTrip, ::testing::ValuesIn(examples()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// Several launches print as one def with several `with T.Kernel` blocks and
// read back as the same launches; a `with T.Kernel(...), T.SimtVF(...)` reads
// back as the nested region it means.
TEST(RoundTripConstructs, LaunchesAndKernelWithVFItem) {
  for (const char* name : {"launch_sequence", "kernel_simt_vf"}) {
    std::string rel = std::string("tests/oracle/kernels/") + name + ".py";
    expectRoundTrip(testing::readFile(std::string(TILESCHED_SOURCE_DIR) + "/" + rel), rel);
  }
}

// Constructs the examples do not use.
TEST(RoundTripConstructs, EverythingElse) {
  expectRoundTrip(R"(import tilelang.language as T


def k(N=4096):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), X: T.Tensor((64, 256), "float16"), n: T.int32, eps: T.float32):
        with T.Kernel(4, threads=128, is_npu=True, prelude="// c") as bx:
            a = T.alloc_shared((256,), "float32")
            h = T.view(a, (512,), "float16")
            v = T.alloc_var("int32", init=-2)
            l1 = T.alloc_l1((64, 64), "float16")
            l0a = T.alloc_l0a((64, 64), "float16")
            l0b = T.alloc_l0b((64, 64), "float16")
            l0c = T.alloc_l0c((64, 64), "float32")
            loc = T.alloc_local((4,), "int8")
            r = T.alloc_shared((2, 256), "float32")
            T.annotate_buffer_versions({a: (2, "counter"), h: (2, "counter")})
            T.annotate_manual_multi_buffer({r: 2})
            T.annotate_unlimit_memory("shared.l0c")
            x = bx * 3 - 1
            T.fill(r, 0.0)
            T.copy(A[0:256], r[bx % 2, 0:256])
            for j in T.Parallel(4):
                loc[j] = j
            for i in T.serial(1, 9, 2, annotations={"enable_offset": True}):
                T.copy(A[i * 256 + x], a, pad_value=0.0)
                if i > n and not (i == 3 or i < -1):
                    a[i % 256] = T.if_then_else(i < 4, -a[0] * 1e-06, T.max(a[1], eps)) / 3.0
                elif i == 5:
                    T.fill(a[0:128], T.infinity("float32"))
                else:
                    v = v + i // 2
            for u in T.unroll(2):
                T.copy(X[u * 64, 64], l1, transpose=True)
            T.copy(l1, l0a)
            T.copy(l1, l0b)
            T.gemm(l0a, l0b, l0c, transpose_A=True, transpose_B=True, clear_accum=bx == 0)
            T.copy(l0c, A[0:4096])
            T.set_flag("FIX", "S", 3)
            T.wait_flag("FIX", "S", 3)
            T.pipe_barrier("ALL")
            with T.SimdVF(latency=4):
                for i in T.Parallel(256):
                    a[i] = T.exp(a[i]) + T.sqrt(T.abs(a[i])) + T.cast(loc[i % 4], "float32") + T.float16(1.5)
                T.reduce_max(r, a[0:2], dim=1, clear=False)
            for t in T.Persistent([3, 5], 2, bx):
                T.copy(A[t[0] * 256 + t[1]], a)
)",
                  "constructs.py");
}

// Issue 7 §3 constructs: T.dynamic sizes (printed as module-level
// `m = T.dynamic("m")`, so the shape and the body read one variable),
// T.assume, float8 buffers and a SIMT thread tuple (printed as its count).
TEST(RoundTripConstructs, DynamicAssumeFloat8Threads) {
  expectRoundTrip(R"(import tilelang.language as T


def k(width=256):
    m = T.dynamic("m")

    @T.prim_func
    def main(X: T.Tensor((m, width), "float32"), Q: T.Tensor((m, width), T.float8_e5m2), n: T.int32):
        T.assume(m % 4 == 0)
        with T.Kernel(4) as bx:
            T.assume(n > bx)
            x = T.alloc_shared((width,), "float32")
            q = T.alloc_shared((width,), T.float8_e5m2)
            for r in T.serial(m // 4):
                begin = (r * 4 + bx) * width
                end = begin + width
                T.copy(X[r * 4 + bx, :], x)
                with T.SimtVF(threads=(16, 16)):
                    for i in T.Parallel(width):
                        q[i] = x[i] * 0.5
                T.copy(q, Q[r * 4 + bx, :])
)",
                  "issue7.py");
}

}  // namespace
}  // namespace tilesched
