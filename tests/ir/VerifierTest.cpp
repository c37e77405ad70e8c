// ir::verifyKernel accepts an elaborated kernel and rejects each broken IR
// shape it checks. Every test copies the valid kernel, rebuilds it into
// exactly one broken shape and expects the verifier's message (and its line,
// where the verifier reports one).
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "frontend/Elaborator.h"
#include "ir/Functor.h"
#include "ir/IROperator.h"

namespace tilesched {
namespace {

using ir::Kernel;
using ir::Stmt;

// Line numbers below refer to this text.
const char* kKernel = R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((256,), "float32"), C: T.Tensor((256,), "float32")):
    with T.Kernel(2) as bx:
        a = T.alloc_shared((64,), "float32")
        c = T.alloc_shared((64,), "float32")
        for s in T.Pipelined(2, num_stages=2):
            T.copy(A[bx * 128 + s * 64:bx * 128 + s * 64 + 64], a)
            for i in T.Parallel(64):
                c[i] = a[i] + 1.0
            T.copy(c, C[bx * 128 + s * 64:bx * 128 + s * 64 + 64])
)";
constexpr int kKernelLine = 5;
constexpr int kForLine = 8;
constexpr int kLoadLine = 9;
constexpr int kParallelLine = 10;
constexpr int kStoreLine = 11;
constexpr int kWriteBackLine = 12;

// The statements of `root` of kind T, in pre-order.
template <class T>
std::vector<Stmt> stmtsOf(const Stmt& root) {
  std::vector<Stmt> out;
  ir::forEachStmt(root, [&](const Stmt& s) {
    if (s->kind == T::kKind) out.push_back(s);
  });
  return out;
}

template <class T>
Stmt onlyStmtOf(const Stmt& root) {
  auto all = stmtsOf<T>(root);
  if (all.size() != 1) throw std::logic_error("the test kernel changed shape");
  return all[0];
}

// Rebuilds `root` with `target` replaced by `replacement` (null removes it
// from its sequence), sharing every other node.
class Replace : public ir::IRMutator {
 public:
  Replace(Stmt target, Stmt replacement)
      : target_(std::move(target)), replacement_(std::move(replacement)) {}
  Stmt mutateStmt(const Stmt& s) override {
    if (s == target_) return replacement_;
    return IRMutator::mutateStmt(s);
  }

 private:
  Stmt target_, replacement_;
};

Stmt replaced(const Stmt& root, const Stmt& target, Stmt replacement) {
  return Replace(target, std::move(replacement)).mutateStmt(root);
}

// Passes when the verifier found at least one problem, every problem it found
// contains `fragment` (the mutation broke exactly one shape), and one of them
// is reported at `line` (0: the verifier gives no line for this shape).
testing::AssertionResult reports(const std::vector<std::string>& errors, int line,
                                 const std::string& fragment) {
  std::string all;
  for (const auto& e : errors) all += "\n  " + e;
  if (errors.empty()) return testing::AssertionFailure() << "the verifier accepted the kernel";
  for (const auto& e : errors)
    if (e.find(fragment) == std::string::npos)
      return testing::AssertionFailure() << "unexpected problem '" << e << "' in:" << all;
  std::string prefix = "line " + std::to_string(line) + ": ";
  bool atLine = std::any_of(errors.begin(), errors.end(),
                            [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
  if (!atLine) return testing::AssertionFailure() << "no problem at line " << line << " in:" << all;
  return testing::AssertionSuccess();
}

class Verifier : public testing::Test {
 protected:
  void SetUp() override {
    auto file = std::make_shared<SourceFile>("k.py", kKernel);
    DiagnosticEngine diags(file);
    auto p = frontend::compileSource(file, {}, diags);
    ASSERT_TRUE(p) << diags.renderAll();
    ASSERT_EQ(p->kernels.size(), 1u);
    program_ = std::move(*p);
    kernel = program_.kernels[0];
  }

  const ir::Buffer& buffer(const std::string& name) const {
    const ir::Buffer* b = kernel.findBuffer(name);
    if (!b) throw std::logic_error("no buffer " + name);
    return *b;
  }

  // The kernel's only statement of kind T, rebuilt by `change` on a copy.
  template <class T, class F>
  void rebuild(F&& change) {
    Stmt old = onlyStmtOf<T>(kernel.body);
    auto copy = std::make_shared<T>(*ir::as<T>(old));
    change(*copy);
    kernel.body = replaced(kernel.body, old, copy);
  }

  // The store `c[i] = a[i] + 1.0`, rebuilt by `change` on a copy.
  template <class F>
  void rebuildStore(F&& change) {
    rebuild<ir::StoreStmt>(std::forward<F>(change));
  }

  // The two copies, load first.
  Stmt loadCopy() const { return stmtsOf<ir::CopyStmt>(kernel.body).at(0); }
  Stmt writeBackCopy() const { return stmtsOf<ir::CopyStmt>(kernel.body).at(1); }

  template <class F>
  void rebuildLoadCopy(F&& change) {
    Stmt old = loadCopy();
    auto copy = std::make_shared<ir::CopyStmt>(*ir::as<ir::CopyStmt>(old));
    change(*copy);
    kernel.body = replaced(kernel.body, old, copy);
  }

  Kernel kernel;

 private:
  ir::Program program_;  // owns the source file the locations point into
};

TEST_F(Verifier, AcceptsTheElaboratedKernel) {
  EXPECT_EQ(ir::verifyKernel(kernel), std::vector<std::string>{});
}

TEST_F(Verifier, AcceptsTheKernelRebuiltUnchanged) {
  // The test helpers alone break nothing: a copy rebuilt without a change passes.
  rebuild<ir::ForStmt>([](ir::ForStmt&) {});
  rebuildLoadCopy([](ir::CopyStmt&) {});
  rebuildStore([](ir::StoreStmt&) {});
  EXPECT_EQ(ir::verifyKernel(kernel), std::vector<std::string>{});
}

TEST_F(Verifier, RejectsABufferWhoseStorageIsNotInTheKernel) {
  const ir::Storage& storage = buffer("a")->storage;
  auto& storages = kernel.storages;
  storages.erase(std::remove(storages.begin(), storages.end(), storage), storages.end());
  // At the buffer's allocation (line 6).
  EXPECT_TRUE(
      reports(ir::verifyKernel(kernel), 6, "buffer 'a' uses a storage not listed in the kernel"));
}

// Shapes that used to crash the verifier (a null dereference after the
// report): a buffer without a storage, a null entry in the buffer list.
TEST_F(Verifier, RejectsABufferWithoutAStorage) {
  auto orphan = std::make_shared<ir::BufferNode>(*buffer("a"));
  orphan->storage = nullptr;
  std::replace(kernel.buffers.begin(), kernel.buffers.end(), buffer("a"), ir::Buffer(orphan));
  auto errors = ir::verifyKernel(kernel);
  EXPECT_NE(std::find(errors.begin(), errors.end(), "line 6: buffer 'a' has no storage"),
            errors.end())
      << ::testing::PrintToString(errors);
}

TEST_F(Verifier, RejectsANullEntryInTheBufferList) {
  kernel.buffers.push_back(nullptr);
  EXPECT_TRUE(
      reports(ir::verifyKernel(kernel), kKernelLine, "null buffer in the kernel's buffer list"));
}

TEST_F(Verifier, RejectsAnOnChipBufferWithASymbolicShape) {
  // A view of c's storage whose extent is the block index.
  auto view = std::make_shared<ir::BufferNode>(*buffer("c"));
  view->id = 1000;
  view->name = "c_view";
  view->isAlias = true;
  view->shape = {ir::varRef(kernel.blockIdx)};
  kernel.buffers.push_back(view);
  EXPECT_TRUE(reports(ir::verifyKernel(kernel), 7, "on-chip buffer 'c_view' has a symbolic shape"));
}

TEST_F(Verifier, RejectsAGridBelowOne) {
  kernel.grid = 0;
  EXPECT_TRUE(reports(ir::verifyKernel(kernel), kKernelLine, "grid must be positive"));
}

TEST_F(Verifier, RejectsANullExpression) {
  rebuild<ir::ForStmt>([](ir::ForStmt& f) { f.min = nullptr; });
  EXPECT_TRUE(reports(ir::verifyKernel(kernel), kForLine, "null expression"));
}

TEST_F(Verifier, RejectsAVariableUsedOutsideItsScope) {
  // Move the write-back, which reads the loop variable s, after the loop.
  Stmt writeBack = writeBackCopy();
  Stmt loop = onlyStmtOf<ir::ForStmt>(kernel.body);
  Stmt loopWithout = replaced(loop, writeBack, nullptr);
  kernel.body = replaced(kernel.body, loop,
                         std::make_shared<ir::SeqStmt>(std::vector<Stmt>{loopWithout, writeBack}));
  EXPECT_TRUE(
      reports(ir::verifyKernel(kernel), kWriteBackLine, "variable 's' used outside its scope"));
}

TEST_F(Verifier, RejectsAnExpressionWithTheWrongOperandCount) {
  rebuildStore([](ir::StoreStmt& s) {
    ASSERT_EQ(s.value->kind, ir::ExprKind::Binary);
    auto value = std::make_shared<ir::ExprNode>(*s.value);
    value->operands.pop_back();  // `a[i] +` with no right-hand side
    s.value = value;
  });
  EXPECT_TRUE(
      reports(ir::verifyKernel(kernel), kStoreLine, "expression has the wrong operand count"));
}

TEST_F(Verifier, RejectsNegativeNumStages) {
  rebuild<ir::ForStmt>([](ir::ForStmt& f) { f.numStages = -1; });
  EXPECT_TRUE(reports(ir::verifyKernel(kernel), kForLine, "negative num_stages"));
}

TEST_F(Verifier, RejectsParallelVarsAndExtentsOfDifferentLengths) {
  rebuild<ir::ParallelStmt>([](ir::ParallelStmt& p) { p.extents.push_back(2); });
  EXPECT_TRUE(reports(ir::verifyKernel(kernel), kParallelLine, "parallel vars and extents differ"));
}

TEST_F(Verifier, RejectsACopyBetweenRegionsOfDifferentElementCounts) {
  rebuildLoadCopy([](ir::CopyStmt& c) { c.src.ranges.at(0).extent = 32; });
  EXPECT_TRUE(
      reports(ir::verifyKernel(kernel), kLoadLine, "copy regions have different element counts"));
}

TEST_F(Verifier, RejectsARegionExtentBelowOne) {
  // Both sides empty, so the element counts still agree.
  rebuildLoadCopy([](ir::CopyStmt& c) {
    c.src.ranges.at(0).extent = 0;
    c.dst.ranges.at(0).extent = 0;
  });
  EXPECT_TRUE(reports(ir::verifyKernel(kernel), kLoadLine, "region extent must be positive"));
}

TEST_F(Verifier, RejectsARegionOutOfTheBufferBounds) {
  // a[32:96] of a 64-element buffer.
  rebuildLoadCopy([](ir::CopyStmt& c) { c.dst.ranges.at(0).min = ir::intImm(32); });
  EXPECT_TRUE(reports(ir::verifyKernel(kernel), kLoadLine,
                      "region of 'a' is out of bounds in dimension 0"));
}

TEST_F(Verifier, RejectsANegativeRegionStart) {
  rebuildLoadCopy([](ir::CopyStmt& c) { c.dst.ranges.at(0).min = ir::intImm(-1); });
  EXPECT_TRUE(reports(ir::verifyKernel(kernel), kLoadLine,
                      "region of 'a' is out of bounds in dimension 0"));
}

TEST_F(Verifier, RejectsATileOperationInsideAParallelBody) {
  // Move the write-back copy into the T.Parallel body.
  Stmt writeBack = writeBackCopy();
  kernel.body = replaced(kernel.body, writeBack, nullptr);
  rebuild<ir::ParallelStmt>([&](ir::ParallelStmt& p) {
    p.body = std::make_shared<ir::SeqStmt>(std::vector<Stmt>{p.body, writeBack}, p.body->loc);
  });
  EXPECT_TRUE(
      reports(ir::verifyKernel(kernel), kWriteBackLine, "tile operation inside a T.Parallel body"));
}

TEST_F(Verifier, RejectsANullBuffer) {
  rebuildStore([](ir::StoreStmt& s) { s.buffer = nullptr; });
  EXPECT_TRUE(reports(ir::verifyKernel(kernel), kStoreLine, "null buffer"));
}

TEST_F(Verifier, RejectsABufferNotDeclaredInTheKernel) {
  auto& buffers = kernel.buffers;
  buffers.erase(std::remove(buffers.begin(), buffers.end(), buffer("c")), buffers.end());
  // c is stored at line 11 and copied from at line 12.
  auto errors = ir::verifyKernel(kernel);
  EXPECT_TRUE(reports(errors, kStoreLine, "buffer 'c' is not declared in the kernel"));
  EXPECT_TRUE(reports(errors, kWriteBackLine, "buffer 'c' is not declared in the kernel"));
}

TEST_F(Verifier, RejectsAStoreWithTheWrongNumberOfIndices) {
  rebuildStore([](ir::StoreStmt& s) { s.indices.push_back(ir::intImm(0)); });
  EXPECT_TRUE(
      reports(ir::verifyKernel(kernel), kStoreLine, "access to 'c' has 2 indices for rank 1"));
}

TEST_F(Verifier, RejectsALoadWithTheWrongNumberOfIndices) {
  rebuildStore([](ir::StoreStmt& s) {
    auto loadA = s.value->operands.at(0);
    ASSERT_EQ(loadA->kind, ir::ExprKind::Load);
    auto twoIndices = std::make_shared<ir::ExprNode>(*loadA);
    twoIndices->operands.push_back(ir::intImm(0));
    s.value = ir::add(twoIndices, s.value->operands.at(1));
  });
  EXPECT_TRUE(
      reports(ir::verifyKernel(kernel), kStoreLine, "access to 'a' has 2 indices for rank 1"));
}

TEST_F(Verifier, RejectsARegionWithTheWrongNumberOfRanges) {
  rebuildLoadCopy([](ir::CopyStmt& c) { c.dst.ranges.push_back({ir::intImm(0), 1}); });
  EXPECT_TRUE(
      reports(ir::verifyKernel(kernel), kLoadLine, "access to 'a' has 2 indices for rank 1"));
}

}  // namespace
}  // namespace tilesched
