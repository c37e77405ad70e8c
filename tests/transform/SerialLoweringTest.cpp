// The serial lowering puts barrier_all after every instruction and nowhere
// else, keeps author-written flags, and leaves the input kernel untouched.
#include <gtest/gtest.h>

#include "frontend/Elaborator.h"
#include "ir/Functor.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "transform/SerialLowering.h"

namespace tilesched::transform {
namespace {

ir::Program compile(const std::string& text) {
  auto file = std::make_shared<SourceFile>("t.py", text);
  DiagnosticEngine diags(file);
  auto p = frontend::compileSource(file, {}, diags);
  if (!p) throw std::runtime_error(diags.renderAll());
  return *p;
}

const char* kKernel = R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((128,), "float32"), C: T.Tensor((128,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((64,), "float32")
        c = T.alloc_shared((64,), "float32")
        for s in T.Pipelined(2, num_stages=2):
            T.copy(A[s * 64:s * 64 + 64], a)
            for i in T.Parallel(64):
                c[i] = a[i] + 1.0
            T.copy(c, C[s * 64:s * 64 + 64])
)";

TEST(SerialLowering, BarrierAfterEveryInstruction) {
  auto p = compile(kKernel);
  ir::Kernel lowered = lowerSerial(p.kernels[0]);
  EXPECT_TRUE(ir::verifyKernel(lowered).empty());
  std::string text = ir::printKernel(lowered);
  const char* expected =
      "        for s in T.Pipelined(2, num_stages=2):\n"
      "            T.copy(A[s * 64:s * 64 + 64], a)  # MTE2\n"
      "            T.pipe_barrier(\"ALL\")\n"
      "            for i in T.Parallel(64):\n"
      "                c[i] = a[i] + 1.0\n"
      "            T.pipe_barrier(\"ALL\")\n"
      "            T.copy(c, C[s * 64:s * 64 + 64])  # MTE3\n"
      "            T.pipe_barrier(\"ALL\")\n";
  EXPECT_NE(text.find(expected), std::string::npos) << text;
  int barriers = 0;
  ir::forEachStmt(lowered.body,
                  [&](const ir::Stmt& s) { barriers += s->kind == ir::StmtKind::Barrier; });
  EXPECT_EQ(barriers, 3);
  // The input is shared, not modified.
  EXPECT_EQ(ir::printKernel(p.kernels[0]).find("pipe_barrier"), std::string::npos);
}

TEST(SerialLowering, KeepsAuthorFlagsAndSkipsPureScalarAssignments) {
  auto p = compile(R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((64,), "float32")):
    with T.Kernel(2) as bx:
        a = T.alloc_shared((64,), "float32")
        n = bx * 2
        T.copy(A, a)
        T.set_flag("MTE2", "MTE3", 0)
        T.wait_flag("MTE2", "MTE3", 0)
        T.copy(a, A)
)");
  ir::Kernel lowered = lowerSerial(p.kernels[0]);
  int barriers = 0, flags = 0;
  ir::forEachStmt(lowered.body, [&](const ir::Stmt& s) {
    barriers += s->kind == ir::StmtKind::Barrier;
    flags += s->kind == ir::StmtKind::SetFlag || s->kind == ir::StmtKind::WaitFlag;
  });
  EXPECT_EQ(barriers, 2);
  EXPECT_EQ(flags, 2);
}

// Issue 7: a condition or loop bound that reads memory is a scalar read of
// that buffer. On the path where the branch is not taken (or the loop runs
// zero times) nothing used to order it before the next write of the buffer.
TEST(SerialLowering, BarrierAfterIfAndLoopWhoseConditionReadsMemory) {
  auto p = compile(R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((64,), "float32"), O: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((64,), "float32")
        T.copy(A, a)
        if a[0] > 100.0:
            a[1] = 5.0
        for i in T.Parallel(64):
            a[i] = a[i] + 1.0
        for k in T.serial(T.cast(a[2], "int32") - 100):
            a[3] = 7.0
        T.copy(a, O)
)");
  ir::Kernel lowered = lowerSerial(p.kernels[0]);
  EXPECT_TRUE(ir::verifyKernel(lowered).empty());
  std::string text = ir::printKernel(lowered);
  const char* expectedIf =
      "        if a[0] > 100.0:\n"
      "            T.pipe_barrier(\"ALL\")\n"
      "            a[1] = 5.0\n"
      "            T.pipe_barrier(\"ALL\")\n"
      "        T.pipe_barrier(\"ALL\")\n"
      "        for i in T.Parallel(64):\n";
  const char* expectedFor =
      "            a[3] = 7.0\n"
      "            T.pipe_barrier(\"ALL\")\n"
      "        T.pipe_barrier(\"ALL\")\n"
      "        T.copy(a, O)";
  EXPECT_NE(text.find(expectedIf), std::string::npos) << text;
  EXPECT_NE(text.find(expectedFor), std::string::npos) << text;
}

}  // namespace
}  // namespace tilesched::transform
