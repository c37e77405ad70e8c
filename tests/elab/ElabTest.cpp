// Elaboration of every construct of SPEC §1 into the tile IR.
#include <gtest/gtest.h>

#include "ElabTestUtil.h"

namespace tilesched {
namespace {

using namespace ir;
using testing::compile;
using testing::flatten;

// A kernel body wrapped in a factory with tensors A, B (1-D, 4096 float32),
// X (2-D 64x256 float16) and a scalar n.
std::string wrap(const std::string& body, const std::string& extra = "") {
  std::string src = "import tilelang.language as T\n" + extra +
                    "\n\ndef factory(N=4096):\n"
                    "    @T.prim_func\n"
                    "    def main(A: T.Tensor((N,), \"float32\"), B: T.Tensor((N,), \"float32\"),\n"
                    "             X: T.Tensor((64, 256), \"float16\"), n: T.int32):\n"
                    "        with T.Kernel(4, is_npu=True) as bx:\n";
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) src += "            " + line + "\n";
  return src + "\n    return main\n";
}

testing::Compiled ok(const std::string& src, frontend::FrontendOptions o = {}) {
  auto c = compile(src, o);
  EXPECT_TRUE(c.program) << c.rendered() << "\n" << src;
  return c;
}

const Stmt& nth(const Kernel& k, size_t i) {
  static std::vector<Stmt> keep;
  keep = flatten(k.body);
  return keep.at(i);
}

TEST(Elab, MacroIsInlined) {
  auto c =
      ok(wrap("a = T.alloc_shared((256,), \"float32\")\n"
              "load(A, a, bx * 256)\n"
              "load(B, a, offset=0)\n",
              "\n\n@T.macro\ndef load(src, dst, offset):\n    T.copy(src[offset], dst)\n"));
  auto body = flatten(c.kernel().body);
  ASSERT_EQ(body.size(), 2u);
  const auto* c0 = as<CopyStmt>(body[0]);
  ASSERT_TRUE(c0);
  EXPECT_EQ(c0->src.buffer->name, "A");
  EXPECT_EQ(c0->pipe, Pipe::MTE2);
  EXPECT_EQ(printRegion(c0->src), "A[bx * 256:bx * 256 + 256]");
  EXPECT_EQ(printRegion(as<CopyStmt>(body[1])->src), "B[0:256]");
}

TEST(Elab, PersistentForFormWithTupleCoordsAndTailGuard) {
  auto c =
      ok(wrap("x = T.alloc_shared((16, 32), \"float16\")\n"
              "for tm, tn in T.Persistent([4, 8], 3, bx, num_stages=2):\n"
              "    T.copy(X[tm * 16, tn * 32], x)\n"));
  const auto* loop = as<ForStmt>(nth(c.kernel(), 0));
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->forKind, ForKind::Persistent);
  // Messages name the loop after the user's coordinates, not a made-up name.
  EXPECT_EQ(loop->var->name, "tm_tn_iter");
  EXPECT_EQ(loop->numStages, 2);
  EXPECT_TRUE(loop->isPipelined());
  EXPECT_EQ(printExpr(loop->extent), "11");  // ceil(32 / 3)
  // 32 tiles over 3 cores: the last round is guarded.
  const auto* guard = as<IfStmt>(loop->body);
  ASSERT_TRUE(guard);
  EXPECT_EQ(printExpr(guard->cond), "bx + tm_tn_iter * 3 < 32");
  const auto* copy = as<CopyStmt>(flatten(guard->thenBody).at(0));
  ASSERT_TRUE(copy);
  EXPECT_EQ(printRegion(copy->src),
            "X[(bx + tm_tn_iter * 3) // 8 * 16:(bx + tm_tn_iter * 3) // 8 * 16 + 16, "
            "(bx + tm_tn_iter * 3) % 8 * 32:(bx + tm_tn_iter * 3) % 8 * 32 + 32]");
}

TEST(Elab, PersistentForFormWithoutTail) {
  // Every core runs the same number of tiles when the index is 0 and the wave divides them.
  auto c =
      ok(wrap("x = T.alloc_shared((256,), \"float32\")\n"
              "for t in T.Persistent([16], 4, 0):\n"
              "    T.copy(A[t * 256], x)\n"));
  const auto* loop = as<ForStmt>(nth(c.kernel(), 0));
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->numStages, 0);
  EXPECT_FALSE(loop->isPipelined());
  EXPECT_EQ(printExpr(loop->extent), "4");
  EXPECT_TRUE(as<SeqStmt>(loop->body)) << "no tail guard expected";
}

TEST(Elab, PersistentWithForm) {
  auto c =
      ok(wrap("a = T.alloc_shared((256,), \"float32\")\n"
              "with T.Persistent(4, num_stages=3, annotations={\"enable_offset\": True}) as i:\n"
              "    T.copy(A[(bx * 4 + i) * 256], a)\n"));
  const auto* loop = as<ForStmt>(nth(c.kernel(), 0));
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->forKind, ForKind::Persistent);
  EXPECT_EQ(loop->numStages, 3);
  EXPECT_TRUE(loop->enableOffset);
  EXPECT_EQ(loop->var->name, "i");
  EXPECT_NE(c.ir().find(
                "with T.Persistent(4, num_stages=3, annotations={\"enable_offset\": True}) as i:"),
            std::string::npos)
      << c.ir();
}

TEST(Elab, PipelinedAnnotations) {
  auto c =
      ok(wrap("a = T.alloc_shared((256,), \"float32\")\n"
              "b = T.alloc_shared((256,), \"float32\")\n"
              "for s in T.Pipelined(16, num_stages=3, annotations={\"enable_offset\": True, "
              "\"multi_buffer_eligible\": [a, b]}):\n"
              "    T.copy(A[s * 256], a)\n"
              "for s in T.Pipelined(2, 8):\n"
              "    T.copy(A[s * 256], b)\n"
              "for s in T.serial(4, annotations={\"num_stages\": 2}):\n"
              "    T.copy(A[s * 256], b)\n"));
  auto body = flatten(c.kernel().body);
  const auto* l0 = as<ForStmt>(body.at(0));
  ASSERT_TRUE(l0);
  EXPECT_EQ(l0->forKind, ForKind::Pipelined);
  EXPECT_EQ(l0->numStages, 3);
  EXPECT_TRUE(l0->enableOffset);
  ASSERT_EQ(l0->eligible.size(), 2u);
  EXPECT_EQ(l0->eligible[0]->name, "a");
  EXPECT_TRUE(l0->eligibleLoc.valid());
  const auto* l1 = as<ForStmt>(body.at(1));
  EXPECT_EQ(l1->numStages, 1);  // T.Pipelined's default
  EXPECT_EQ(printExpr(l1->extent), "6");
  EXPECT_EQ(printRegion(as<CopyStmt>(flatten(l1->body)[0])->src),
            "A[(2 + s) * 256:(2 + s) * 256 + 256]");
  const auto* l2 = as<ForStmt>(body.at(2));
  EXPECT_EQ(l2->forKind, ForKind::Pipelined) << "a num_stages annotation pipelines a T.serial loop";
  EXPECT_EQ(l2->numStages, 2);
}

TEST(Elab, LargeConstantsDoNotWrapToTheIndexType) {
  // Regression: `bx * 2 ** 40` once became `bx * 0` (the constant was wrapped to int32).
  auto c =
      ok(wrap("a = T.alloc_shared((4,), \"float32\")\n"
              "T.copy(A[bx * 2 ** 40:bx * 2 ** 40 + 4], a)\n"));
  EXPECT_EQ(printRegion(as<CopyStmt>(nth(c.kernel(), 0))->src),
            "A[bx * T.int64(1099511627776):bx * T.int64(1099511627776) + 4]");
}

TEST(Elab, SerialLoopsWithStartAndStep) {
  auto c =
      ok(wrap("a = T.alloc_shared((256,), \"float32\")\n"
              "for i in T.serial(1, 10, 3):\n"
              "    T.copy(A[i * 256], a)\n"
              "for j in range(8, 0, -2):\n"
              "    T.copy(A[j * 256], a)\n"
              "for u in T.unroll(2):\n"
              "    T.copy(A[u * 256], a)\n"));
  auto body = flatten(c.kernel().body);
  EXPECT_EQ(printExpr(as<ForStmt>(body.at(0))->extent), "3");
  EXPECT_EQ(printExpr(as<ForStmt>(body.at(1))->extent), "4");
  EXPECT_EQ(as<ForStmt>(body.at(2))->forKind, ForKind::Unroll);
  EXPECT_EQ(printRegion(as<CopyStmt>(flatten(as<ForStmt>(body.at(1))->body)[0])->src),
            "A[(8 + j * -2) * 256:(8 + j * -2) * 256 + 256]");
}

TEST(Elab, GuardsOnRunTimeValuesAndConstantIfs) {
  auto c =
      ok(wrap("a = T.alloc_shared((256,), \"float32\")\n"
              "if N > 100:\n"
              "    T.copy(A[0:256], a)\n"
              "else:\n"
              "    T.copy(B[0:256], a)\n"
              "if bx == 0:\n"
              "    T.fill(a, 0.0)\n"
              "elif bx < n:\n"
              "    T.fill(a, 1.0)\n"
              "else:\n"
              "    T.fill(a, 2.0)\n"));
  auto body = flatten(c.kernel().body);
  ASSERT_EQ(body.size(), 2u);
  EXPECT_EQ(as<CopyStmt>(body[0])->src.buffer->name, "A");  // resolved at compile time
  const auto* guard = as<IfStmt>(body[1]);
  ASSERT_TRUE(guard);
  EXPECT_EQ(printExpr(guard->cond), "bx == 0");
  const auto* elif = as<IfStmt>(guard->elseBody);
  ASSERT_TRUE(elif) << "elif chains stay flat";
  EXPECT_EQ(printExpr(elif->cond), "bx < n");
  EXPECT_TRUE(elif->elseBody);
}

TEST(Elab, ViewsShareStorage) {
  auto c =
      ok(wrap("a = T.alloc_shared((256,), \"float32\")\n"
              "h = T.view(a, (512,), \"float16\")\n"
              "m = T.view(h, shape=(16, 16))\n"
              "T.annotate_buffer_versions({h: 2})\n"
              "T.copy(A[0:256], a)\n"));
  const Kernel& k = c.kernel();
  const Buffer* a = k.findBuffer("a");
  const Buffer* h = k.findBuffer("h");
  const Buffer* m = k.findBuffer("m");
  ASSERT_TRUE(a && h && m);
  EXPECT_EQ((*a)->storage, (*h)->storage);
  EXPECT_EQ((*a)->storage, (*m)->storage);
  EXPECT_TRUE((*h)->isAlias);
  EXPECT_FALSE((*a)->isAlias);
  EXPECT_EQ((*m)->dtype, DType::Float16);
  EXPECT_EQ((*a)->storage->bytes, 1024);
  // Storages: A, B, X and a; the views add none.
  EXPECT_EQ(k.storages.size(), 4u);
  ASSERT_EQ(k.annotations.bufferVersions.size(), 1u);
  EXPECT_EQ(k.annotations.bufferVersions[0].storage, (*a)->storage);
  EXPECT_NE(c.ir().find("m = T.view(a, (16, 16), \"float16\")"), std::string::npos) << c.ir();
}

TEST(Elab, AllocVarAndScalarWork) {
  auto c =
      ok(wrap("cnt = T.alloc_var(\"int32\", init=3)\n"
              "acc = T.alloc_var(dtype=\"float32\")\n"
              "x = bx * 2 + 1\n"
              "cnt = cnt + x\n"
              "cnt += 1\n"
              "acc = T.cast(cnt, \"float32\") * 0.5\n"));
  auto body = flatten(c.kernel().body);
  ASSERT_EQ(body.size(), 5u);
  const auto* init = as<StoreStmt>(body[0]);
  ASSERT_TRUE(init);
  EXPECT_EQ(init->buffer->storage->scope, MemScope::LocalVar);
  EXPECT_EQ(printExpr(init->value), "3");
  const auto* assign = as<AssignStmt>(body[1]);
  ASSERT_TRUE(assign);
  EXPECT_EQ(assign->var->name, "x");
  EXPECT_EQ(printStmt(body[2]), "cnt[0] = cnt[0] + x\n");
  EXPECT_EQ(printStmt(body[3]), "cnt[0] = cnt[0] + 1\n");
  EXPECT_EQ(printStmt(body[4]), "acc[0] = T.cast(cnt[0], \"float32\") * 0.5\n");
}

TEST(Elab, VFRegionsWithLatency) {
  auto c =
      ok(wrap("a = T.alloc_shared((256,), \"float32\")\n"
              "f = T.alloc_fragment((256,), \"float32\")\n"
              "s = T.alloc_shared((1,), \"float32\")\n"
              "with T.SimtVF(threads=128, latency=64):\n"
              "    for i in T.Parallel(256):\n"
              "        f[i] = a[i] * 2.0\n"
              "    T.copy(f, a)\n"
              "with T.SimdVF(latency=8):\n"
              "    T.reduce_sum(a, s)\n"
              "with T.SimdVF():\n"
              "    T.fill(a, 0.0)\n"
              "with T.SimdVF(latency=0):\n"
              "    T.fill(a, 1.0)\n"));
  const Kernel& k = c.kernel();
  EXPECT_TRUE(k.hasSimtVF);
  auto body = flatten(k.body);
  const auto* simt = as<VFRegionStmt>(body.at(0));
  ASSERT_TRUE(simt);
  EXPECT_TRUE(simt->simt);
  EXPECT_EQ(simt->threads, 128);
  EXPECT_EQ(simt->latency, 64);
  EXPECT_EQ(as<CopyStmt>(flatten(simt->body).at(1))->pipe, Pipe::V);
  const auto* simd = as<VFRegionStmt>(body.at(1));
  EXPECT_FALSE(simd->simt);
  EXPECT_EQ(simd->latency, 8);
  EXPECT_FALSE(as<VFRegionStmt>(body.at(2))->latency.has_value());
  // latency=0 is upstream's "not measured": the region is estimated.
  EXPECT_FALSE(as<VFRegionStmt>(body.at(3))->latency.has_value());
}

// Upstream spellings: T.float is float32; a view chosen by a compile-time
// conditional expression is that view.
TEST(Elab, FloatAliasAndConditionalView) {
  auto c =
      ok(wrap("a = T.alloc_shared((8,), T.float)\n"
              "v = T.view(a, (2, 4)) if N > 8 else T.reshape(a, (8,))\n"
              "w = T.view(a, (2, 4)) if N < 8 else T.reshape(a, (4, 2))\n"
              "v[1, 3] = 1.0\n"
              "w[3, 1] = 2.0\n"));
  const Kernel& k = c.kernel();
  ASSERT_GE(k.buffers.size(), 3u);
  EXPECT_EQ(k.buffers.at(k.buffers.size() - 3)->dtype, DType::Float32);
  auto body = flatten(k.body);
  ASSERT_GE(body.size(), 2u);
  EXPECT_EQ(printStmt(body.at(body.size() - 2)), "v[1, 3] = 1.0\n");
  EXPECT_EQ(printStmt(body.at(body.size() - 1)), "w[3, 1] = 2.0\n");
  EXPECT_EQ(k.buffers.back()->shape.size(), 2u);
  EXPECT_EQ(printExpr(k.buffers.back()->shape[0]), "4");
}

// T.bind(e) names e's value at that point: a T.alloc_var is read, not aliased.
TEST(Elab, BindSnapshotsTheValue) {
  auto c =
      ok(wrap("cnt = T.alloc_var(\"int32\", init=3)\n"
              "x = T.bind(cnt)\n"
              "cnt = cnt + 1\n"
              "y = T.bind(n > 0)\n"
              "if y:\n"
              "    A[0] = T.cast(x, \"float32\")\n"));
  std::string printed;
  for (const auto& s : flatten(c.kernel().body)) printed += printStmt(s);
  EXPECT_NE(printed.find("x = cnt[0]\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("y = n > 0\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("A[0] = T.cast(x, \"float32\")"), std::string::npos) << printed;
}

// `with T.Task(...)` is a plain block: the same IR as its statements alone.
TEST(Elab, TaskIsAPlainBlock) {
  auto body = [](bool task) {
    std::string pad = task ? "    " : "";
    return std::string("a = T.alloc_shared((256,), \"float32\")\n") +
           (task ? "with T.Task(latency=4, ii=2):\n" : "") + pad + "T.copy(A[0:256], a)\n" + pad +
           "for i in T.Parallel(256):\n" + pad + "    a[i] = a[i] + 1.0\n" +
           "T.copy(a, B[0:256])\n";
  };
  auto plain = ok(wrap(body(false)));
  auto task = compile(wrap(body(true)));
  ASSERT_TRUE(task.program) << task.rendered();
  std::string p, t;
  for (const auto& s : flatten(plain.kernel().body)) p += printStmt(s);
  for (const auto& s : flatten(task.kernel().body)) t += printStmt(s);
  EXPECT_EQ(p, t);
  EXPECT_NE(task.rendered().find("T.Task is read as a plain block"), std::string::npos);
}

TEST(Elab, ParallelNest) {
  auto c =
      ok(wrap("x = T.alloc_shared((4, 256), \"float16\")\n"
              "y = T.alloc_shared((4, 256), \"float32\")\n"
              "for i, j in T.Parallel(4, 256):\n"
              "    y[i, j] = T.cast(x[i, j], \"float32\") * 2.0 + T.exp(T.float32(1))\n"));
  const auto* p = as<ParallelStmt>(nth(c.kernel(), 0));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->extents, (std::vector<int64_t>{4, 256}));
  ASSERT_EQ(p->vars.size(), 2u);
  EXPECT_EQ(printStmt(p->body), "y[i, j] = T.cast(x[i, j], \"float32\") * 2.0 + T.exp(1.0)\n");
}

TEST(Elab, Reductions) {
  auto c =
      ok(wrap("x = T.alloc_shared((4, 256), \"float32\")\n"
              "r = T.alloc_shared((4,), \"float32\")\n"
              "c = T.alloc_shared((256,), \"float32\")\n"
              "o = T.alloc_shared((1,), \"float32\")\n"
              "T.reduce_sum(x, r, dim=-1)\n"
              "T.reduce_max(x, c, dim=0, clear=False)\n"
              "T.reduce_absmax(c, o)\n"
              "T.reduce_min(x[0:1, :], o, 1)\n"));
  auto body = flatten(c.kernel().body);
  const auto* r0 = as<ReduceStmt>(body.at(0));
  EXPECT_EQ(r0->dim, 1);
  EXPECT_TRUE(r0->clear);
  EXPECT_EQ(r0->reduceKind, ReduceKind::Sum);
  const auto* r1 = as<ReduceStmt>(body.at(1));
  EXPECT_EQ(r1->dim, 0);
  EXPECT_FALSE(r1->clear);
  EXPECT_EQ(as<ReduceStmt>(body.at(2))->reduceKind, ReduceKind::AbsMax);
  EXPECT_EQ(as<ReduceStmt>(body.at(3))->dim, 1);
}

TEST(Elab, CopiesWithHeadAddressesAndLeadingOnes) {
  auto c =
      ok(wrap("x = T.alloc_shared((4, 256), \"float16\")\n"
              "row = T.alloc_shared((256,), \"float16\")\n"
              "T.copy(X[bx * 4, 0], x)\n"
              "T.copy(X[bx, 0], row)\n"
              "T.copy(row, X[3, 0])\n"
              "T.copy(X[5:6, :], row)\n"
              "T.copy(x[1, :], X[7:8, 0:256])\n"));
  auto body = flatten(c.kernel().body);
  EXPECT_EQ(printRegion(as<CopyStmt>(body[0])->src), "X[bx * 4:bx * 4 + 4, 0:256]");
  EXPECT_EQ(printRegion(as<CopyStmt>(body[1])->src), "X[bx, 0:256]");
  EXPECT_EQ(printRegion(as<CopyStmt>(body[2])->dst), "X[3, 0:256]");
  EXPECT_EQ(as<CopyStmt>(body[3])->src.numElements(), 256);
  EXPECT_EQ(printRegion(as<CopyStmt>(body[4])->src), "x[1, 0:256]");
}

TEST(Elab, PipesOfEveryCopyPath) {
  auto c =
      ok(wrap("ub = T.alloc_shared((64, 64), \"float16\")\n"
              "ub32 = T.alloc_shared((64, 64), \"float32\")\n"
              "l1 = T.alloc_l1((64, 64), \"float16\")\n"
              "l0a = T.alloc_l0a((64, 64), \"float16\")\n"
              "l0b = T.alloc_l0b((64, 64), \"float16\")\n"
              "l0c = T.alloc_l0c((64, 64), \"float32\")\n"
              "frag = T.alloc_fragment((64, 64), \"float16\")\n"
              "loc = T.alloc_local((64, 64), \"float16\")\n"
              "T.copy(X[0:64, 0:64], ub)\n"
              "T.copy(X[0:64, 0:64], l1)\n"
              "T.copy(ub, X[0:64, 0:64])\n"
              "T.copy(ub, l1)\n"
              "T.copy(l1, l0a)\n"
              "T.copy(l1, l0b)\n"
              "T.copy(l0c, ub32)\n"
              "T.copy(l0c, A[0:4096])\n"
              "T.copy(ub, ub)\n"
              "T.copy(frag, ub)\n"
              "T.copy(ub, frag)\n"
              "T.copy(loc, ub)\n"
              "T.fill(l1, 0.0)\n"
              "T.clear(ub)\n"
              "T.gemm(l1, l1, l0c)\n"
              "T.gemm(l0a, l0b, l0c, transpose_A=True)\n"));
  std::vector<Pipe> want = {Pipe::MTE2, Pipe::MTE2, Pipe::MTE3, Pipe::MTE3, Pipe::MTE1, Pipe::MTE1,
                            Pipe::FIX,  Pipe::FIX,  Pipe::V,    Pipe::V,    Pipe::V,    Pipe::V};
  auto body = flatten(c.kernel().body);
  for (size_t i = 0; i < want.size(); ++i) {
    const auto* copy = as<CopyStmt>(body.at(i));
    ASSERT_TRUE(copy) << i;
    EXPECT_EQ(copy->pipe, want[i]) << printStmt(body[i]);
  }
  EXPECT_EQ(as<FillStmt>(body.at(12))->pipe, Pipe::MTE2);
  EXPECT_EQ(as<FillStmt>(body.at(13))->pipe, Pipe::V);
  EXPECT_TRUE(as<GemmStmt>(body.at(14))->hasL1Operands());
  EXPECT_FALSE(as<GemmStmt>(body.at(15))->hasL1Operands());
  EXPECT_TRUE(as<GemmStmt>(body.at(15))->transA);
}

TEST(Elab, CopyKeywordsAreRecorded) {
  auto c =
      ok(wrap("l1 = T.alloc_l1((64, 64), \"float16\")\n"
              "T.copy(X[0:64, 0:64], l1, transpose=True, pad_value=0.0, l2_cache_ctrl=n)\n"));
  const auto* copy = as<CopyStmt>(nth(c.kernel(), 0));
  // pad_value= is an operand of the copy (issue 7), transpose= a real
  // transpose (CopyStmt::transpose), neither a recorded keyword.
  ASSERT_EQ(copy->kwargs.size(), 1u);
  EXPECT_TRUE(copy->transpose);
  EXPECT_EQ(copy->kwargs[0].second, "'a run-time value'");
  ASSERT_TRUE(copy->padValue);
  EXPECT_EQ(printExpr(copy->padValue), "T.float16(0.0)");  // in the destination dtype
}

TEST(Elab, FlagsAndBarriers) {
  auto c =
      ok(wrap("T.set_flag(\"MTE2\", \"V\", 1)\nT.wait_flag(\"mte2\", \"v\", "
              "1)\nT.pipe_barrier(\"ALL\")\nT.pipe_barrier(\"MTE3\")\n"));
  auto body = flatten(c.kernel().body);
  EXPECT_EQ(printStmt(body[0]), "T.set_flag(\"MTE2\", \"V\", 1)\n");
  EXPECT_EQ(printStmt(body[1]), "T.wait_flag(\"MTE2\", \"V\", 1)\n");
  EXPECT_TRUE(as<BarrierStmt>(body[2])->all);
  EXPECT_EQ(as<BarrierStmt>(body[3])->pipe, Pipe::MTE3);
}

TEST(Elab, AnnotationsAreStoredOnTheKernel) {
  auto c =
      ok(wrap("a = T.alloc_shared((256,), \"float32\")\n"
              "b = T.alloc_l1((256,), \"float32\")\n"
              "r = T.alloc_shared((2, 256), \"float32\")\n"
              "f = T.alloc_shared((768,), \"float32\")\n"
              "T.annotate_buffer_versions({a: (2, \"counter\"), b: \"iteration\"})\n"
              "T.annotate_buffer_versions({a: (2, \"counter\")})\n"
              "T.annotate_manual_multi_buffer(r, {f: 3})\n"
              "T.annotate_unlimit_memory(\"shared\", \"shared.l1\", \"shared\")\n"));
  const auto& an = c.kernel().annotations;
  ASSERT_EQ(an.bufferVersions.size(), 2u);
  EXPECT_EQ(an.bufferVersions[0].count, 2);
  EXPECT_EQ(an.bufferVersions[0].mode, VersionMode::Counter);
  EXPECT_FALSE(an.bufferVersions[1].count.has_value());
  EXPECT_EQ(an.bufferVersions[1].mode, VersionMode::Iteration);
  ASSERT_EQ(an.manual.size(), 2u);
  EXPECT_EQ(an.manual[0].ring, 2);  // leading dimension
  EXPECT_EQ(an.manual[1].ring, 3);
  EXPECT_EQ(an.unlimited, (std::vector<MemScope>{MemScope::UB, MemScope::L1}));
}

TEST(Elab, OptOutAndAutoKeepEligibility) {
  auto c =
      ok(wrap("a = T.alloc_shared((256,), \"float32\")\n"
              "b = T.alloc_shared((256,), \"float32\")\n"
              "T.annotate_buffer_versions({a: 1, b: (1, \"auto\")})\n"));
  const auto& v = c.kernel().annotations.bufferVersions;
  EXPECT_TRUE(v[0].isOptOut());
  EXPECT_FALSE(v[1].isOptOut());
}

const char* kTwoKernels = R"(import tilelang.language as T


def first(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(2) as bx:
            a = T.alloc_shared((128,), "float32")
            T.copy(A[bx * 128], a)
        with T.Kernel(1) as b2:
            c = T.alloc_shared((256,), "float32")
            T.copy(A, c)

    return main


def second(M=64):
    @T.prim_func
    def other(B: T.Tensor((M,), "float16")):
        with T.Kernel(M // 32) as bx:
            b = T.alloc_shared((32,), "float16")
            T.copy(B[bx * 32], b)

    return other


@T.prim_func
def top(C: T.Tensor((16,), "float32")):
    with T.Kernel(1) as bx:
        c = T.alloc_shared((16,), "float32")
        T.copy(C, c)
)";

TEST(Elab, SeveralKernelBlocksAndFuncSelection) {
  auto all = ok(kTwoKernels);
  ASSERT_EQ(all.program->kernels.size(), 4u);
  // In file order; the two T.Kernel blocks of `main` are two kernels.
  EXPECT_EQ(all.kernel(0).name, "main");
  EXPECT_EQ(all.kernel(1).name, "main_1");
  EXPECT_EQ(all.kernel(0).grid, 2);
  EXPECT_EQ(all.kernel(1).grid, 1);
  EXPECT_EQ(all.kernel(1).factory, "first");
  // Each kernel block has its own buffers.
  EXPECT_TRUE(all.kernel(0).findBuffer("a"));
  EXPECT_FALSE(all.kernel(1).findBuffer("a"));
  EXPECT_TRUE(all.kernel(1).findBuffer("c"));
  EXPECT_EQ(all.kernel(2).name, "other");
  EXPECT_EQ(all.kernel(2).grid, 2);
  EXPECT_EQ(all.kernel(3).name, "top");
  EXPECT_EQ(all.kernel(3).factory, "");
  // The two blocks of `main` are launches 0 and 1 of one prim_func; the
  // other prim_funcs have one launch each.
  for (int i : {0, 1}) {
    EXPECT_EQ(all.kernel(i).launch, i);
    EXPECT_EQ(all.kernel(i).numLaunches, 2);
    EXPECT_EQ(all.kernel(i).primFuncName(), "main");
    EXPECT_EQ(all.kernel(i).displayName(), "first launch " + std::to_string(i) + "/2");
  }
  for (int i : {2, 3}) {
    EXPECT_EQ(all.kernel(i).launch, 0);
    EXPECT_EQ(all.kernel(i).numLaunches, 1);
  }
  EXPECT_EQ(all.kernel(3).displayName(), "top");

  for (auto [func, count] : std::vector<std::pair<std::string, size_t>>{
           {"first", 2}, {"main", 2}, {"second", 1}, {"other", 1}, {"top", 1}}) {
    frontend::FrontendOptions o;
    o.func = func;
    auto c = ok(kTwoKernels, o);
    ASSERT_TRUE(c.program) << func;
    EXPECT_EQ(c.program->kernels.size(), count) << func;
  }
  frontend::FrontendOptions o;
  o.func = "second";
  o.defines = {{"M", "128"}};
  auto c = ok(kTwoKernels, o);
  EXPECT_EQ(c.kernel().grid, 4);
  EXPECT_TRUE(c.diags->all().empty()) << c.rendered();
}

TEST(Elab, KernelWithVFItemWrapsTheBodyInOneRegion) {
  auto c = ok(R"(
import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((64,), "float32")):
    with T.Kernel(2, is_npu=True) as bx, T.SimtVF(threads=32, latency=7):
        for i in T.Parallel(32):
            A[bx * 32 + i] = A[bx * 32 + i] + 1.0
        x = A[0]
)");
  ASSERT_TRUE(c.program) << c.rendered();
  const auto& k = c.kernel();
  EXPECT_EQ(k.grid, 2);
  EXPECT_TRUE(k.hasSimtVF);
  const auto* body = as<SeqStmt>(k.body);
  ASSERT_TRUE(body);
  ASSERT_EQ(body->stmts.size(), 1u);
  const auto* vf = as<VFRegionStmt>(body->stmts[0]);
  ASSERT_TRUE(vf);
  EXPECT_TRUE(vf->simt);
  EXPECT_EQ(vf->threads, 32);
  EXPECT_EQ(vf->latency, 7);
  ASSERT_TRUE(as<SeqStmt>(vf->body));
  EXPECT_EQ(as<SeqStmt>(vf->body)->stmts.size(), 2u);  // the Parallel loop and the assignment
}

TEST(Elab, UnusedDefineWarnsWithoutLocation) {
  frontend::FrontendOptions o;
  o.defines = {{"nope", "1"}};
  auto c = ok(kTwoKernels, o);
  ASSERT_EQ(c.diags->all().size(), 1u);
  EXPECT_EQ(c.diags->all()[0].severity, Severity::Warning);
  EXPECT_EQ(c.diags->all()[0].message, "-D nope does not name a parameter of any kernel factory");
}

TEST(Elab, SeveralErrorsPerRun) {
  auto c =
      compile(wrap("a = T.alloc_shared((256,), \"float32\")\n"
                   "T.copy(A[0:128], a)\n"
                   "T.fill(a, \"x\")\n"
                   "T.annotate_buffer_versions({a: (2, \"fast\")})\n"));
  EXPECT_FALSE(c.program);
  EXPECT_EQ(c.diags->numErrors(), 3u) << c.rendered();
}

TEST(Elab, RenderedDiagnosticHasSourceLineAndCaret) {
  auto c =
      compile(wrap("a = T.alloc_shared((256,), \"float32\")\n"
                   "T.annotate_buffer_versions({a: (2, \"fast\")})\n"));
  EXPECT_EQ(c.rendered(),
            "test.py:10:48: error: unknown mode 'fast' for buffer 'a'; expected 'auto', "
            "'iteration' or 'counter'\n"
            "            T.annotate_buffer_versions({a: (2, \"fast\")})\n"
            "                                               ^\n");
}

TEST(Elab, MacroErrorsNoteTheCallSite) {
  auto c = compile(wrap("a = T.alloc_shared((256,), \"float32\")\nbad(a)\n",
                        "\n\n@T.macro\ndef bad(buf):\n    T.fill(buf, \"x\")\n"));
  ASSERT_EQ(c.diags->all().size(), 1u) << c.rendered();
  const auto& d = c.diags->all()[0];
  EXPECT_EQ(d.loc.line, 6u);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].first.line, 15u);
  EXPECT_EQ(d.notes[0].second, "in macro 'bad' inlined here");
}

TEST(Elab, NamesAreUniqueAndPrintable) {
  // Two allocations named `a` and a user buffer `a_1`; loop vars that shadow.
  auto c =
      ok(wrap("a = T.alloc_shared((256,), \"float32\")\n"
              "a = T.alloc_shared((128,), \"float32\")\n"
              "a_1 = T.alloc_shared((64,), \"float32\")\n"
              "for i in T.Parallel(64):\n"
              "    a_1[i] = 0.0\n"
              "for i in T.Parallel(128):\n"
              "    a[i] = 1.0\n"
              "for i_1 in T.Parallel(128):\n"
              "    a[i_1] = 2.0\n"));
  std::vector<std::string> names;
  for (const auto& b : c.kernel().buffers) names.push_back(b->name);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "X", "a", "a_1", "a_1_1"}));
  std::string ir = c.ir();
  EXPECT_NE(ir.find("for i in T.Parallel(64):\n            a_1_1[i] = 0.0"), std::string::npos)
      << ir;
  EXPECT_NE(ir.find("for i_1 in T.Parallel(128):\n            a_1[i_1] = 1.0"), std::string::npos)
      << ir;
  EXPECT_NE(ir.find("for i_1_1 in T.Parallel(128):\n            a_1[i_1_1] = 2.0"),
            std::string::npos)
      << ir;
}

TEST(Elab, DynamicSizes) {
  std::string src =
      "import tilelang.language as T\n\n@T.prim_func\n"
      "def main(A: T.Tensor((T.dynamic(\"n\"), 64), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n"
      "        a = T.alloc_shared((4, 64), \"float32\")\n"
      "        T.copy(A[bx * 4, 0], a)\n";
  auto sym = ok(src);
  ASSERT_EQ(sym.kernel().dynamicVars.size(), 1u);
  EXPECT_EQ(printShape(sym.kernel().params[0].buffer->shape), "(n, 64)");
  frontend::FrontendOptions o;
  o.defines = {{"n", "128"}};
  auto fixed = ok(src, o);
  EXPECT_TRUE(fixed.kernel().dynamicVars.empty());
  EXPECT_EQ(printShape(fixed.kernel().params[0].buffer->shape), "(128, 64)");
  EXPECT_TRUE(fixed.diags->all().empty()) << fixed.rendered();
}

TEST(Elab, EverythingOutsideTheKernelIsSkipped) {
  std::string src = R"(import tilelang
import tilelang.language as T
import torch
from functools import partial


class Config:
    def __init__(self):
        self.x = [i for i in range(3)]


async def helper():
    await something()


def unrelated(x):
    try:
        return x.y
    except AttributeError:
        return lambda: 0


@tilelang.jit(out_idx=[1])
def kernel(N=256):
    config = Config()
    block = N // 2

    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(2) as bx:
            a = T.alloc_shared((block,), "float32")
            T.copy(A[bx * block], a)

    return main


if __name__ == "__main__":
    kernel = kernel(1024)
    a = torch.randn(1024).npu()
    match a:
        case _:
            pass
    print(f"{kernel(a)!r}")
)";
  auto c = ok(src);
  EXPECT_TRUE(c.diags->all().empty()) << c.rendered();
  EXPECT_EQ(c.kernel().grid, 2);
}

}  // namespace
}  // namespace tilesched

// `from tilelang import language` binds `language` (not `tilelang`) to the dialect.
TEST(Elab, FromImportBindsTheImportedName) {
  const char* text = R"(from tilelang import language
def k(N=64):
    @language.prim_func
    def main(A: language.Tensor((N,), "float32")):
        with language.Kernel(1) as bx:
            a = language.alloc_shared((N,), "float32")
            language.copy(A, a)
    return main
)";
  auto file = std::make_shared<tilesched::SourceFile>("from_import.py", text);
  tilesched::DiagnosticEngine diags(file);
  auto program = tilesched::frontend::compileSource(file, {}, diags);
  ASSERT_TRUE(program) << diags.renderAll();
  ASSERT_EQ(program->kernels.size(), 1u);
  EXPECT_EQ(program->kernels[0].buffers.size(), 2u);
}
