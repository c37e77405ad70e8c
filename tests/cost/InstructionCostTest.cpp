// Instruction costs through real kernels: each test compiles a small kernel
// with the front end and costs one of its statements on ascend950. The
// calibration points of SPEC §3.4 / issue 4 are the goldens.
#include <gtest/gtest.h>

#include <stdexcept>

#include "cost/InstructionCost.h"
#include "frontend/Elaborator.h"
#include "ir/Functor.h"

using namespace tilesched;
using namespace tilesched::ir;

namespace {

const Target& ascend950() {
  static const Target t = [] {
    std::string error;
    auto t = loadTarget("ascend950", error);
    if (!t) throw std::runtime_error(error);
    return *t;
  }();
  return t;
}

// Compiles `body` as the body of `with T.Kernel(1) as bx:` with `params`.
Program compile(const std::string& params, const std::string& body) {
  std::string text = "import tilelang.language as T\n\n@T.prim_func\ndef main(" + params +
                     "):\n    with T.Kernel(1) as bx:\n";
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string::npos) end = body.size();
    text += "        " + body.substr(start, end - start) + "\n";
    start = end + 1;
  }
  DiagnosticEngine diags;
  auto file = std::make_shared<SourceFile>("test.py", text);
  diags.setFile(file);
  auto program = frontend::compileSource(file, {}, diags);
  if (!program)
    throw std::runtime_error("kernel does not compile:\n" + diags.renderAll() + "\n" + text);
  return *program;
}

// The `index`-th statement of kind `kind` in pre-order.
Stmt nth(const Program& p, StmtKind kind, int index = 0) {
  Stmt found;
  int seen = 0;
  forEachStmt(p.kernels.at(0).body, [&](const Stmt& s) {
    if (s->kind == kind && !found && seen++ == index) found = s;
  });
  if (!found) throw std::runtime_error("statement not found");
  return found;
}

cost::InstructionCost costOf(const std::string& params, const std::string& body, StmtKind kind,
                             int index = 0, cost::CostOptions options = {}) {
  Program p = compile(params, body);
  return cost::instructionCost(nth(p, kind, index), ascend950(), options);
}

#define EXPECT_COST(c, pipeV, lat, iiV) \
  do {                                  \
    EXPECT_EQ((c).pipe, Pipe::pipeV);   \
    EXPECT_EQ((c).latency, lat);        \
    EXPECT_EQ((c).ii, iiV);             \
  } while (0)

}  // namespace

// ------------------------------------------------------- calibration points

TEST(CopyCost, GmToL1Bf16_16x16) {
  auto c =
      costOf("A: T.Tensor((64, 64), \"bfloat16\")",
             "a = T.alloc_l1((16, 16), \"bfloat16\")\nT.copy(A[0:16, 0:16], a)", StmtKind::Copy);
  EXPECT_COST(c, MTE2, 196, 64);
  ASSERT_TRUE(c.copyPath);
  EXPECT_EQ(*c.copyPath, CopyPath::GmToL1);
  EXPECT_FALSE(c.secondPipe);
}

TEST(CopyCost, GmToL1Bf16_128x128) {
  auto c = costOf("A: T.Tensor((256, 256), \"bfloat16\")",
                  "a = T.alloc_l1((128, 128), \"bfloat16\")\nT.copy(A[0:128, 128:256], a)",
                  StmtKind::Copy);
  EXPECT_COST(c, MTE2, 518, 328);
}

TEST(CopyCost, L0cToUbFp32_128x128) {
  auto c =
      costOf("A: T.Tensor((128, 128), \"float32\")",
             "c = T.alloc_l0c((128, 128), \"float32\")\nu = T.alloc_ub((128, 128), \"float32\")\n"
             "T.copy(c, u)",
             StmtKind::Copy);
  EXPECT_COST(c, FIX, 570, 514);
  EXPECT_EQ(*c.copyPath, CopyPath::L0cToUb);
}

// A hardware dual copy is one FixPipe at the dual-destination figures: base
// 55, the whole tile's bytes at 256 bytes/cycle when each AIV's half is
// contiguous (a row split of a whole L0C tile), at the band of one AIV's row
// width when the halves are strided (a column split): 16 floats, 64 bytes,
// 128 bytes/cycle.
TEST(CopyCost, DualCopyL0cToBothUbs) {
  auto rows = costOf("A: T.Tensor((128, 128), \"float32\")",
                     "c = T.alloc_l0c((128, 128), \"float32\")\n"
                     "u = T.alloc_ub((64, 128), \"float32\")\n"
                     "with T.Cube():\n"
                     "    T.clear(c)\n"
                     "    T.dual_copy(c, u)\n"
                     "with T.Vector() as sid:\n"
                     "    T.copy(u, A[sid * 64, 0])",
                     StmtKind::Copy);
  EXPECT_COST(rows, FIX, 55 + 65536 / 256, 2 + 65536 / 256);
  EXPECT_EQ(*rows.copyPath, CopyPath::L0cToUb);
  auto cols = costOf("A: T.Tensor((64, 32), \"float32\")",
                     "c = T.alloc_l0c((64, 32), \"float32\")\n"
                     "u = T.alloc_ub((64, 16), \"float32\")\n"
                     "with T.Cube():\n"
                     "    T.clear(c)\n"
                     "    T.dual_copy(c, u)\n"
                     "with T.Vector() as sid:\n"
                     "    T.copy(u, A[0, sid * 16])",
                     StmtKind::Copy);
  EXPECT_COST(cols, FIX, 55 + 8192 / 128, 2 + 8192 / 128);
}

TEST(CopyCost, L0cToGmFp32_128x128) {
  auto c = costOf("C: T.Tensor((256, 256), \"float32\")",
                  "c = T.alloc_l0c((128, 128), \"float32\")\nT.copy(c, C[128:256, 0:128])",
                  StmtKind::Copy);
  EXPECT_COST(c, FIX, 712, 514);
  EXPECT_EQ(*c.copyPath, CopyPath::L0cToGm);
}

TEST(CopyCost, GmToUb1x64Bf16PerCore) {
  auto c = costOf("A: T.Tensor((8, 64), \"bfloat16\")",
                  "a = T.alloc_ub((1, 64), \"bfloat16\")\nT.copy(A[bx, :], a)", StmtKind::Copy);
  EXPECT_COST(c, MTE2, 93, 13);
  EXPECT_EQ(*c.copyPath, CopyPath::GmToUb);
}

TEST(CopyCost, UbToGm1x64Bf16PerCore) {
  auto c = costOf("A: T.Tensor((8, 64), \"bfloat16\")",
                  "a = T.alloc_ub((64,), \"bfloat16\")\nT.copy(a, A[bx + 1, :])", StmtKind::Copy);
  EXPECT_COST(c, MTE3, 183, 10);
  EXPECT_EQ(*c.copyPath, CopyPath::UbToGm);
}

TEST(GemmCost, Hf32_64x64x24) {
  std::string body =
      "a = T.alloc_l0a((64, 24), \"float32\")\nb = T.alloc_l0b((24, 64), \"float32\")\n"
      "c = T.alloc_l0c((64, 64), \"float32\")\nT.gemm(a, b, c)";
  cost::CostOptions hf32;
  hf32.fp32GemmAsHf32 = true;
  auto c = costOf("A: T.Tensor((64, 64), \"float32\")", body, StmtKind::Gemm, 0, hf32);
  EXPECT_COST(c, M, 115, 48);
  EXPECT_FALSE(c.secondPipe);
  // Exact fp32 (the default): 67 + 196608/512, 196608/512.
  auto exact = costOf("A: T.Tensor((64, 64), \"float32\")", body, StmtKind::Gemm);
  EXPECT_COST(exact, M, 451, 384);
}

// ------------------------------------------------------------ geometry

TEST(CopyCost, RowStridedGmToUbUsesTheBandOfTheRowWidth) {
  // 16 rows of 16 bf16 = 32 bytes each out of a 64-wide tensor: band 32..63,
  // B = 2 x 512 = 1024 → (75 + 1024/64, max(13, 16)) = (91, 16).
  auto c =
      costOf("A: T.Tensor((64, 64), \"bfloat16\")",
             "a = T.alloc_ub((16, 16), \"bfloat16\")\nT.copy(A[0:16, 16:32], a)", StmtKind::Copy);
  EXPECT_COST(c, MTE2, 91, 16);
  // The same 512 bytes contiguous (whole rows): 90 + 1024/100, max(13, 11).
  auto contiguous =
      costOf("A: T.Tensor((64, 16), \"bfloat16\")",
             "a = T.alloc_ub((16, 16), \"bfloat16\")\nT.copy(A[16:32, :], a)", StmtKind::Copy);
  EXPECT_COST(contiguous, MTE2, 101, 13);
}

TEST(CopyCost, HeadAddressFormIsStridedInGm) {
  auto p = compile("X: T.Tensor((64, 64), \"float16\")",
                   "x = T.alloc_ub((16, 32), \"float16\")\nT.copy(X[16, 32], x)");
  const auto* copy = as<CopyStmt>(nth(p, StmtKind::Copy));
  auto g = cost::copyGeometry(*copy);
  EXPECT_EQ(g.bytes, 16 * 32 * 2);
  EXPECT_EQ(g.rows, 16);
  EXPECT_EQ(g.rowBytes, 64);
  EXPECT_TRUE(g.rowStrided);
}

// T.StridedTensor: whole rows are one burst only where the rows are dense;
// padded rows (stride 32 for 16 elements) or a run-time stride make one burst
// per row, an innermost stride > 1 one per element.
TEST(CopyCost, StridedTensorRowsAreBurstsOnlyWhereDense) {
  auto geometry = [](const std::string& param) {
    auto p = compile(param, "x = T.alloc_ub((16, 16), \"float16\")\nT.copy(X[0:16, :], x)");
    return cost::copyGeometry(*as<CopyStmt>(nth(p, StmtKind::Copy)));
  };
  auto dense = geometry("X: T.StridedTensor((64, 16), (16, 1), \"float16\")");
  EXPECT_EQ(dense.rows, 1);
  EXPECT_EQ(dense.rowBytes, 16 * 16 * 2);
  auto padded = geometry("X: T.StridedTensor((64, 16), (32, 1), \"float16\")");
  EXPECT_EQ(padded.rows, 16);
  EXPECT_EQ(padded.rowBytes, 16 * 2);
  auto runtime = geometry("s: T.int32, X: T.StridedTensor((64, 16), (s, 1), \"float16\")");
  EXPECT_EQ(runtime.rows, 16);
  auto columns = geometry("X: T.StridedTensor((64, 16), (1, 64), \"float16\")");
  EXPECT_EQ(columns.rows, 16 * 16);
  EXPECT_EQ(columns.rowBytes, 2);
  EXPECT_EQ(columns.bytes, dense.bytes);
}

TEST(CopyCost, NarrowStridedUbToGmRows) {
  // 8 rows of 16 bytes into a wider GM tensor: (440 + 256/40, max(10, 7)).
  auto c = costOf("A: T.Tensor((8, 64), \"float16\")",
                  "a = T.alloc_ub((8, 8), \"float16\")\nT.copy(a, A[:, 8:16])", StmtKind::Copy);
  EXPECT_COST(c, MTE3, 447, 10);
}

TEST(CopyCost, OnChipPaths) {
  auto l0a =
      costOf("A: T.Tensor((64, 64), \"float16\")",
             "a = T.alloc_l1((64, 64), \"float16\")\nb = T.alloc_l0a((64, 32), \"float16\")\n"
             "T.copy(a[:, 0:32], b)",
             StmtKind::Copy);
  // 4096 bytes: (5 + 16, 3 + 16)
  EXPECT_COST(l0a, MTE1, 21, 19);
  auto ubl1 = costOf(
      "A: T.Tensor((64, 64), \"float16\")",
      "a = T.alloc_ub((64, 64), \"float16\")\nb = T.alloc_l1((64, 64), \"float16\")\nT.copy(a, b)",
      StmtKind::Copy);
  // 8192 bytes: (43 + 32, 32)
  EXPECT_COST(ubl1, MTE3, 75, 32);
  auto move = costOf(
      "A: T.Tensor((64, 64), \"float32\")",
      "a = T.alloc_ub((1024,), \"float32\")\nb = T.alloc_ub((1024,), \"float32\")\nT.copy(a, b)",
      StmtKind::Copy);
  // vector move: B = 2 x 4096 → 32 cycles
  EXPECT_COST(move, V, 32, 32);
}

// ---------------------------------------------------------------- gemm

TEST(GemmCost, L1OperandsAddAnMte1Part) {
  auto c = costOf("A: T.Tensor((64, 64), \"float16\")",
                  "a = T.alloc_l1((64, 64), \"float16\")\nb = T.alloc_l1((64, 64), \"float16\")\n"
                  "c = T.alloc_l0c((64, 64), \"float32\")\nT.gemm(a, b, c)",
                  StmtKind::Gemm);
  // ops = 2*64*64*64 = 524288 → (8 + 64, 64)
  EXPECT_COST(c, M, 72, 64);
  ASSERT_TRUE(c.secondPipe);
  EXPECT_EQ(*c.secondPipe, Pipe::MTE1);
  // each operand 8192 bytes: (5 + 32, 3 + 32); B starts after A's II.
  EXPECT_EQ(c.secondIi, 70);
  EXPECT_EQ(c.secondLatency, 72);
  EXPECT_EQ(cost::totalLatency(c), 144);
}

TEST(GemmCost, TransposedOperandsAndAlignment) {
  // A (M=20, K=40) fp16, B^T given as (N=24, K=40): align16 → 32 x 32 x 48.
  auto c = costOf("A: T.Tensor((64, 64), \"float16\")",
                  "a = T.alloc_l0a((20, 40), \"float16\")\nb = T.alloc_l0b((24, 40), \"float16\")\n"
                  "c = T.alloc_l0c((20, 24), \"float32\")\nT.gemm(a, b, c, transpose_B=True)",
                  StmtKind::Gemm);
  // ops = 2*32*32*48 = 98304 → (8 + 12, 12)
  EXPECT_COST(c, M, 20, 12);
}

// -------------------------------------------------------------- vector

TEST(VectorCost, ParallelAddIsBytesBound) {
  auto c = costOf("A: T.Tensor((1024,), \"float32\")",
                  "a = T.alloc_ub((1024,), \"float32\")\nb = T.alloc_ub((1024,), \"float32\")\n"
                  "c = T.alloc_ub((1024,), \"float32\")\n"
                  "for i in T.Parallel(1024):\n    c[i] = a[i] + b[i]",
                  StmtKind::Parallel);
  // 3 x 4096 bytes / 256 = 48 > ceil(1024/51) = 21
  EXPECT_COST(c, V, 48, 48);
}

TEST(VectorCost, ParallelOpsByClass) {
  // exp (8/cycle) + sub (51) + div (13) over 2048 elements:
  // 256 + 41 + 158 = 455; bytes (3 x 8192) / 256 = 96.
  auto c = costOf("A: T.Tensor((1024,), \"float32\")",
                  "a = T.alloc_ub((2048,), \"float32\")\nb = T.alloc_ub((2048,), \"float32\")\n"
                  "c = T.alloc_ub((2048,), \"float32\")\n"
                  "for i in T.Parallel(2048):\n    c[i] = T.exp(a[i] - b[i]) / b[i]",
                  StmtKind::Parallel);
  EXPECT_COST(c, V, 455, 455);
}

TEST(VectorCost, BroadcastOperandsTouchOnlyTheirBox) {
  // x (16 x 256 fp32) * r[i] (16 fp32) → y: bytes 16384 + 64 + 16384 = 32832 → 129;
  // ops ceil(4096/51) = 81.
  auto c = costOf("A: T.Tensor((1024,), \"float32\")",
                  "x = T.alloc_ub((16, 256), \"float32\")\nr = T.alloc_ub((16,), \"float32\")\n"
                  "y = T.alloc_ub((16, 256), \"float32\")\n"
                  "for i, j in T.Parallel(16, 256):\n    y[i, j] = x[i, j] * r[i]",
                  StmtKind::Parallel);
  EXPECT_COST(c, V, 129, 129);
}

TEST(VectorCost, FillAndReduce) {
  std::string body =
      "x = T.alloc_ub((16, 256), \"float32\")\ns = T.alloc_ub((16,), \"float32\")\n"
      "T.fill(x, 0.0)\nT.reduce_sum(x, s, dim=-1)\nT.reduce_absmax(x, s, dim=-1)";
  // fill: ceil(4096/51) = 81 ops vs 16384/256 = 64 bytes
  EXPECT_COST(costOf("A: T.Tensor((1024,), \"float32\")", body, StmtKind::Fill), V, 81, 81);
  // reduce: 81 ops vs (16384 + 64)/256 = 65 bytes
  EXPECT_COST(costOf("A: T.Tensor((1024,), \"float32\")", body, StmtKind::Reduce, 0), V, 81, 81);
  // abs variant: twice the ops
  EXPECT_COST(costOf("A: T.Tensor((1024,), \"float32\")", body, StmtKind::Reduce, 1), V, 162, 162);
}

TEST(VectorCost, FillOfL1IsAnMte2Transfer) {
  auto c = costOf("A: T.Tensor((1024,), \"float32\")",
                  "a = T.alloc_l1((128, 128), \"bfloat16\")\nT.clear(a)", StmtKind::Fill);
  EXPECT_COST(c, MTE2, 518, 328);
}

TEST(VectorCost, VFRegionLatencyOverrides) {
  std::string body =
      "x = T.alloc_ub((1024,), \"float32\")\ny = T.alloc_ub((1024,), \"float32\")\n"
      "with T.SimdVF(latency=300):\n"
      "    for i in T.Parallel(1024):\n        y[i] = x[i] * 2.0\n"
      "with T.SimdVF():\n"
      "    for i in T.Parallel(1024):\n        y[i] = x[i] * 2.0\n"
      "    for i in T.Parallel(1024):\n        x[i] = T.exp(y[i])\n";
  EXPECT_COST(costOf("A: T.Tensor((1024,), \"float32\")", body, StmtKind::VFRegion, 0), V, 300,
              300);
  // Without latency=: the sum of its work: max(21, 32) + max(128, 32) = 160.
  EXPECT_COST(costOf("A: T.Tensor((1024,), \"float32\")", body, StmtKind::VFRegion, 1), V, 160,
              160);
}

TEST(VectorCost, ElementwiseOpCyclesCountsValueOpsOnly) {
  auto p = compile("A: T.Tensor((1024,), \"float32\")",
                   "a = T.alloc_ub((1024,), \"float32\")\nb = T.alloc_ub((1024,), \"float32\")\n"
                   "for i in T.Parallel(512):\n    b[i * 2] = T.sigmoid(a[i * 2 + 1]) * 3.0");
  const auto* par = as<ParallelStmt>(nth(p, StmtKind::Parallel));
  // sigmoid (8/cycle) + mul (51/cycle); the index arithmetic is not vector work.
  EXPECT_EQ(cost::elementwiseOpCycles(par->body, 512, ascend950()), 64 + 11);
}

// -------------------------------------------------------------- scalar, flags

TEST(ScalarCost, StoresAssignsAndFlags) {
  std::string body =
      "u = T.alloc_ub((16,), \"float32\")\nu[0] = 1.0\nn = u[1] * 2.0\n"
      "T.set_flag(\"MTE2\", \"V\", 0)\nT.wait_flag(\"MTE2\", \"V\", 0)\nT.pipe_barrier(\"MTE3\")";
  std::string params = "A: T.Tensor((1024,), \"float32\")";
  EXPECT_COST(costOf(params, body, StmtKind::Store), S, 1, 1);
  EXPECT_COST(costOf(params, body, StmtKind::Assign), S, 1, 1);  // a let that loads
  EXPECT_FALSE(cost::instructionCost(nth(compile(params, body), StmtKind::Assign), ascend950())
                   .registerOnly);
  EXPECT_COST(costOf(params, body, StmtKind::SetFlag), MTE2, 1, 1);
  EXPECT_COST(costOf(params, body, StmtKind::WaitFlag), V, 1, 1);
  EXPECT_COST(costOf(params, body, StmtKind::Barrier), MTE3, 1, 1);
}

TEST(ScalarCost, APureLetIsRegisterArithmetic) {
  // `off = bx * 2` computes what an inline address computes: no pipe, no time
  // (issue 17 §2: a named offset costs what the inline one does).
  auto p = compile("A: T.Tensor((1024,), \"float32\")", "n = bx * 2 + 1");
  auto c = cost::instructionCost(nth(p, StmtKind::Assign), ascend950());
  EXPECT_TRUE(c.registerOnly);
  EXPECT_EQ(c.latency, 0);
  EXPECT_EQ(c.ii, 0);
}

TEST(InstructionCost, NonLeafStatementsAreInternalErrors) {
  auto p = compile("A: T.Tensor((1024,), \"float32\")",
                   "a = T.alloc_ub((16,), \"float32\")\nfor i in T.serial(4):\n    T.copy(A[i * "
                   "16:i * 16 + 16], a)");
  EXPECT_THROW(cost::instructionCost(nth(p, StmtKind::For), ascend950()), InternalError);
}
