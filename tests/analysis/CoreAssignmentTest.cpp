// Core assignment (analysis/CoreAssignment.h) on small kernels: which core
// each task runs on and why, the kernel's kind, and the errors (their text is
// checked by tests/diagnostics/core_*.py).
#include <gtest/gtest.h>

#include "TestUtil.h"
#include "analysis/CoreAssignment.h"

using namespace tilesched;
using namespace tilesched::analysis;
using tilesched::testing::analyzeKernelBody;
using tilesched::testing::ascend950;

namespace {

const char* kGemmParams =
    "A: T.Tensor((64, 64), \"float16\"), C: T.Tensor((64, 64), \"float32\"), "
    "I: T.Tensor((8,), \"int32\")";

struct Assigned {
  tilesched::testing::Analyzed a;
  std::optional<CoreAssignment> cores;
};

Assigned assign(const std::string& params, const std::string& body) {
  Assigned out{analyzeKernelBody(params, body), std::nullopt};
  out.cores = assignCores(out.a.ka.root, ascend950(), *out.a.diags);
  return out;
}

// The core of the unit at `line` (of the generated file: the body starts at line 6).
std::string coreAt(const CoreAssignment& c, uint32_t line) {
  for (const auto& u : c.units)
    if (u.unit->loc.line == line) return std::string(coreMaskName(u.core));
  return "no unit";
}
std::string reasonAt(const CoreAssignment& c, uint32_t line) {
  for (const auto& u : c.units)
    if (u.unit->loc.line == line) return u.reason;
  return "no unit";
}

TEST(CoreAssignment, VectorKernelIsPure) {
  auto r = assign("A: T.Tensor((256,), \"float32\"), B: T.Tensor((256,), \"float32\")",
                  "a = T.alloc_ub((64,), \"float32\")\n"
                  "for s in T.Pipelined(4, num_stages=2):\n"
                  "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                  "    for i in T.Parallel(64):\n"
                  "        a[i] = a[i] * 2.0\n"
                  "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  ASSERT_TRUE(r.cores) << r.a.diags->renderAll();
  EXPECT_EQ(r.cores->kind, KernelCores::Vector);
  ASSERT_EQ(r.cores->units.size(), 4u);  // the loop and its three tasks
  for (const auto& u : r.cores->units) EXPECT_EQ(u.core, kVectorCore) << u.reason;
  EXPECT_EQ(reasonAt(*r.cores, 8), "MTE2 into shared");
  EXPECT_EQ(reasonAt(*r.cores, 9), "pipe V");
  EXPECT_EQ(reasonAt(*r.cores, 11), "pipe MTE3");
}

TEST(CoreAssignment, CubeKernelTakesItsScalarWork) {
  auto r = assign(kGemmParams,
                  "a_l1 = T.alloc_l1((64, 64), \"float16\")\n"
                  "c = T.alloc_l0c((64, 64), \"float32\")\n"
                  "row = bx * 64\n"
                  "T.copy(A[row:row + 64, 0:64], a_l1)\n"
                  "T.gemm(a_l1, a_l1, c, transpose_B=True)\n"
                  "T.copy(c, C)\n");
  ASSERT_TRUE(r.cores) << r.a.diags->renderAll();
  EXPECT_EQ(r.cores->kind, KernelCores::Cube);
  EXPECT_EQ(coreAt(*r.cores, 8), "cube");  // row = bx * 64: read by the cube's copy
  EXPECT_EQ(reasonAt(*r.cores, 8), "scalar work, read on the cube core");
  EXPECT_EQ(coreAt(*r.cores, 9), "cube");
  EXPECT_EQ(reasonAt(*r.cores, 9), "MTE2 into shared.l1");
  EXPECT_EQ(reasonAt(*r.cores, 10), "pipe MTE1+M");
  EXPECT_EQ(reasonAt(*r.cores, 11), "pipe FIX");
}

TEST(CoreAssignment, GemmWithAVectorStoreIsMixedAndSharesItsScalars) {
  auto r = assign(kGemmParams,
                  "a_l1 = T.alloc_l1((64, 64), \"float16\")\n"
                  "c = T.alloc_l0c((64, 64), \"float32\")\n"
                  "c_ub = T.alloc_ub((64, 64), \"float32\")\n"
                  "row = bx * 64\n"
                  "unused = bx + 1\n"
                  "T.copy(A[row:row + 64, 0:64], a_l1)\n"
                  "T.gemm(a_l1, a_l1, c, transpose_B=True)\n"
                  "T.copy(c, c_ub)\n"
                  "T.copy(c_ub, C[row:row + 64, 0:64])\n");
  ASSERT_TRUE(r.cores) << r.a.diags->renderAll();
  EXPECT_EQ(r.cores->kind, KernelCores::Mixed);
  EXPECT_EQ(coreAt(*r.cores, 9), "both");  // row: read by the L1 load and the UB store
  EXPECT_EQ(reasonAt(*r.cores, 9), "scalar work, read on both cores");
  EXPECT_EQ(coreAt(*r.cores, 10), "cube");  // nothing reads it: the cube core takes it
  EXPECT_EQ(reasonAt(*r.cores, 10), "scalar work nothing reads; on the cube core");
  EXPECT_EQ(coreAt(*r.cores, 13), "cube");    // L0C -> UB is the fixpipe's
  EXPECT_EQ(coreAt(*r.cores, 14), "vector");  // UB -> GM
}

TEST(CoreAssignment, ScalarWorkReadOnlyByTheVectorCoreStaysThere) {
  auto r = assign(kGemmParams,
                  "a_l1 = T.alloc_l1((64, 64), \"float16\")\n"
                  "c = T.alloc_l0c((64, 64), \"float32\")\n"
                  "c_ub = T.alloc_ub((64, 64), \"float32\")\n"
                  "col = bx * 64\n"
                  "T.copy(A, a_l1)\n"
                  "T.gemm(a_l1, a_l1, c, transpose_B=True)\n"
                  "T.copy(c, c_ub)\n"
                  "T.copy(c_ub, C[0:64, col:col + 64])\n");
  ASSERT_TRUE(r.cores) << r.a.diags->renderAll();
  EXPECT_EQ(coreAt(*r.cores, 9), "vector");
  EXPECT_EQ(reasonAt(*r.cores, 9), "scalar work, read on the vector core");
}

TEST(CoreAssignment, AValueLoadedFromUbPinsItsReadersToTheVectorCore) {
  auto r = assign(kGemmParams,
                  "i_ub = T.alloc_ub((8,), \"int32\")\n"
                  "c_ub = T.alloc_ub((64, 64), \"float32\")\n"
                  "T.copy(I, i_ub)\n"
                  "n = i_ub[0]\n"
                  "m = n + 1\n"
                  "for i, j in T.Parallel(64, 64):\n"
                  "    c_ub[i, j] = T.cast(m, \"float32\")\n"
                  "T.copy(c_ub, C)\n");
  ASSERT_TRUE(r.cores) << r.a.diags->renderAll();
  EXPECT_EQ(r.cores->kind, KernelCores::Vector);
  EXPECT_EQ(coreAt(*r.cores, 9), "vector");
  EXPECT_EQ(reasonAt(*r.cores, 9), "scalar work on 'i_ub' (shared)");
  EXPECT_EQ(coreAt(*r.cores, 10), "vector");  // m = n + 1: n exists on the vector core only
  EXPECT_EQ(reasonAt(*r.cores, 10).rfind("reads 'n', computed on the vector core (line 9", 0), 0u)
      << reasonAt(*r.cores, 10);
}

TEST(CoreAssignment, ACubeTaskReadingAUbValueIsAnError) {
  auto r = assign(kGemmParams,
                  "i_ub = T.alloc_ub((8,), \"int32\")\n"
                  "a_l1 = T.alloc_l1((64, 64), \"float16\")\n"
                  "T.copy(I, i_ub)\n"
                  "row = i_ub[0]\n"
                  "T.copy(A[row:row + 1, 0:64], a_l1[0:1, 0:64])\n");
  EXPECT_FALSE(r.cores);
  ASSERT_EQ(r.a.diags->numErrors(), 1u);
  EXPECT_NE(r.a.diags->renderAll().find("test.py:10:9: error: this task runs on the cube core"),
            std::string::npos)
      << r.a.diags->renderAll();
}

// A kernel's own flags go with the pipes they name: MTE2 -> MTE1 and
// M -> FIX are the cube core's, so this GEMM stays a cube kernel (upstream's
// test_gemm_padded_copy.py); a FIX -> MTE3 flag names both kinds.
TEST(CoreAssignment, FlagsFollowThePipesTheyName) {
  auto r = assign(kGemmParams,
                  "a_l1 = T.alloc_l1((64, 64), \"float16\")\n"
                  "c = T.alloc_l0c((64, 64), \"float32\")\n"
                  "T.copy(A, a_l1)\n"
                  "T.set_flag(\"MTE2\", \"MTE1\", 0)\n"
                  "T.wait_flag(\"MTE2\", \"MTE1\", 0)\n"
                  "T.gemm(a_l1, a_l1, c, transpose_B=True, clear_accum=True)\n"
                  "T.set_flag(\"M\", \"FIX\", 0)\n"
                  "T.wait_flag(\"M\", \"FIX\", 0)\n"
                  "T.copy(c, C)\n"
                  "T.set_flag(\"FIX\", \"MTE3\", 0)\n"
                  "T.wait_flag(\"FIX\", \"MTE3\", 0)\n");
  ASSERT_TRUE(r.cores) << r.a.diags->renderAll();
  EXPECT_EQ(r.cores->kind, KernelCores::Cube);
  EXPECT_EQ(coreAt(*r.cores, 9), "cube");
  EXPECT_EQ(reasonAt(*r.cores, 9), "synchronisation of pipe MTE1");
  EXPECT_EQ(reasonAt(*r.cores, 13), "synchronisation of pipe M+FIX");
  EXPECT_EQ(reasonAt(*r.cores, 15)
                .rfind("synchronisation between pipes of both core kinds (FIX "
                       "and MTE3)",
                       0),
            0u)
      << reasonAt(*r.cores, 15);
}

// T.clear of L0C is costed on V, but only the cube core reaches L0C: the
// fill goes with its memory, and the GEMM stays a cube kernel.
TEST(CoreAssignment, AFillGoesWithTheMemoryItFills) {
  auto r = assign(kGemmParams,
                  "a_l1 = T.alloc_l1((64, 64), \"float16\")\n"
                  "c = T.alloc_l0c((64, 64), \"float32\")\n"
                  "T.copy(A, a_l1)\n"
                  "T.clear(c)\n"
                  "T.gemm(a_l1, a_l1, c, transpose_B=True)\n"
                  "T.copy(c, C)\n");
  ASSERT_TRUE(r.cores) << r.a.diags->renderAll();
  EXPECT_EQ(r.cores->kind, KernelCores::Cube);
  EXPECT_EQ(reasonAt(*r.cores, 9), "fill of 'c' (shared.l0c)");
}

// Demand flows back along a chain of scalar values in one pass: each of
// x1 .. x40 is read by the next, the last by the vector store.
TEST(CoreAssignment, ScalarChainsTakeTheirReadersCore) {
  std::string body =
      "c_ub = T.alloc_ub((64, 64), \"float32\")\n"
      "a_l1 = T.alloc_l1((64, 64), \"float16\")\n"
      "c = T.alloc_l0c((64, 64), \"float32\")\n"
      "T.copy(A, a_l1)\n"
      "T.gemm(a_l1, a_l1, c, transpose_B=True, clear_accum=True)\n"
      "T.copy(c, c_ub)\n"
      "x0 = bx\n";
  for (int i = 1; i <= 40; ++i)
    body += "x" + std::to_string(i) + " = x" + std::to_string(i - 1) + " + 1\n";
  body += "T.copy(c_ub, C[0:64, x40:x40 + 64])\n";
  auto r = assign(kGemmParams, body);
  ASSERT_TRUE(r.cores) << r.a.diags->renderAll();
  EXPECT_EQ(r.cores->kind, KernelCores::Mixed);
  for (uint32_t line = 12; line <= 52; ++line)
    EXPECT_EQ(coreAt(*r.cores, line), "vector") << line << ": " << reasonAt(*r.cores, line);
}

TEST(CoreAssignment, TargetDescribesTheCoreGroup) {
  const CoreGroup& g = ascend950().coreGroup;
  EXPECT_EQ(g.aivPerAic, 2);
  EXPECT_EQ(g.crossCoreFlags, 16);
  EXPECT_TRUE(g.cubeHas(MemScope::L0C));
  EXPECT_TRUE(g.vectorHas(MemScope::UB));
  EXPECT_FALSE(g.cubeHas(MemScope::UB));
  EXPECT_TRUE(g.cubePipes & pipeMask(Pipe::FIX));
  EXPECT_FALSE(g.vectorPipes & pipeMask(Pipe::M));
  EXPECT_TRUE(g.vectorPipes & g.cubePipes & pipeMask(Pipe::MTE2));
}

}  // namespace
