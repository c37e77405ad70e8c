// The overlap oracle's syntactic test (issue 11: thousands of tasks in one
// loop): hand-made pairs with answers worked out by hand, and random small
// pairs on which it must agree with the Z3 query whenever it answers.
#include <gtest/gtest.h>

#include <random>

#include "analysis/Overlap.h"
#include "ir/IROperator.h"

using namespace tilesched;
using namespace tilesched::analysis;

namespace {

struct Fixture {
  ir::Storage storage =
      std::make_shared<ir::StorageNode>(ir::StorageNode{1, "A", MemScope::Global, 0, {}});
  ir::Storage other =
      std::make_shared<ir::StorageNode>(ir::StorageNode{2, "B", MemScope::Global, 0, {}});
  ir::Var t =
      std::make_shared<ir::VarNode>(ir::VarNode{7, "t", ir::DType::Int32, ir::VarKind::Loop});
  ir::Var bx =
      std::make_shared<ir::VarNode>(ir::VarNode{8, "bx", ir::DType::Int32, ir::VarKind::BlockIdx});
  ir::Var n =
      std::make_shared<ir::VarNode>(ir::VarNode{9, "n", ir::DType::Int32, ir::VarKind::Param});
  ir::Buffer flat, grid;  // A as (4096,) and as (64, 64)
  std::shared_ptr<ir::ForStmt> loop = std::make_shared<ir::ForStmt>(SourceLoc{});

  explicit Fixture(int64_t trips = 8) {
    flat = std::make_shared<ir::BufferNode>(
        ir::BufferNode{1, "A", storage, ir::DType::Float32, {ir::intImm(4096)}, {}, false});
    grid = std::make_shared<ir::BufferNode>(ir::BufferNode{
        2, "A2", storage, ir::DType::Float32, {ir::intImm(64), ir::intImm(64)}, {}, false});
    loop->var = t;
    loop->min = ir::intImm(0);
    loop->extent = ir::intImm(trips);
  }
  ir::Expr tv() const { return ir::varRef(t); }
  // A[start : start + extent] of the flat view.
  Access slice(ir::Expr start, int64_t extent, AccessKind kind = AccessKind::Write) const {
    Access a;
    a.kind = kind;
    a.storage = storage;
    a.buffer = flat;
    a.box = {BoxDim{std::move(start), extent, false}};
    return a;
  }
  // t·stride + offset
  ir::Expr affine(int64_t stride, int64_t offset) const {
    return ir::add(ir::mul(tv(), stride), ir::intImm(offset));
  }
};

}  // namespace

TEST(OverlapSyntactic, DisjointSlicesOfAWideLoopNeedNoSolver) {
  // The wide loop of tests/common/WideLoopKernel.h: group g owns
  // A[t·64 + 16·g : +16] (4 groups), so two groups never meet, in any
  // iteration pair; a group meets itself only in the same iteration.
  Fixture f;
  OverlapOracle oracle;
  for (int g = 0; g < 4; ++g)
    for (int h = 0; h < 4; ++h) {
      Access a = f.slice(f.affine(64, 16 * g), 16), b = f.slice(f.affine(64, 16 * h), 16);
      EXPECT_EQ(decideSyntactically(a, b, f.loop.get(), 0), std::optional<bool>(g == h));
      EXPECT_EQ(decideSyntactically(a, b, f.loop.get(), std::nullopt), std::optional<bool>(false));
      EXPECT_EQ(oracle.mayOverlap(a, b, f.loop.get(), std::nullopt), false);
      EXPECT_EQ(oracle.mayOverlap(a, b, f.loop.get(), 0), g == h);
    }
  EXPECT_EQ(oracle.stats().solverCalls, 0);
  EXPECT_EQ(oracle.stats().decidedWithoutSolver, 32);
}

TEST(OverlapSyntactic, ShiftIntervals) {
  Fixture f;  // 8 trips: shifts 1..7
  // A[t·8 : +16] written, A[t·8 + 40 : +4] read: b(p + d) - a(p) = 8d + 40,
  // overlapping when -4 < 8d + 40 < 16, i.e. d = -5, -4 (none >= 0).
  Access w = f.slice(f.affine(8, 0), 16), r = f.slice(f.affine(8, 40), 4);
  EXPECT_EQ(decideSyntactically(w, r, f.loop.get(), std::nullopt), false);
  // The other way round: a = r, b = w: 8d - 40 in (-16, 4): d = 4 (−8), 5 (0).
  EXPECT_EQ(decideSyntactically(r, w, f.loop.get(), std::nullopt), true);
  EXPECT_EQ(decideSyntactically(r, w, f.loop.get(), 3), false);
  EXPECT_EQ(decideSyntactically(r, w, f.loop.get(), 4), true);
  EXPECT_EQ(decideSyntactically(r, w, f.loop.get(), 5), true);
  EXPECT_EQ(decideSyntactically(r, w, f.loop.get(), 6), false);
  // With 5 trips the largest shift is 4: still overlapping; with 4 trips not.
  for (auto [trips, meets] : {std::pair<int64_t, bool>{5, true}, {4, false}}) {
    Fixture g(trips);
    Access gw = g.slice(g.affine(8, 0), 16), gr = g.slice(g.affine(8, 40), 4);
    EXPECT_EQ(decideSyntactically(gr, gw, g.loop.get(), std::nullopt), meets) << trips;
  }
  // A descending walk: A[64 - 8t : +8] meets itself only at shift 0.
  Access down = f.slice(ir::sub(ir::intImm(64), ir::mul(f.tv(), 8)), 8);
  EXPECT_EQ(decideSyntactically(down, down, f.loop.get(), std::nullopt), false);
  EXPECT_EQ(decideSyntactically(down, down, f.loop.get(), 0), true);
}

TEST(OverlapSyntactic, UndecidedCasesAreLeftToTheSolver) {
  Fixture f;
  // Distinct storages and distinct scalars never overlap.
  Access a = f.slice(f.affine(16, 0), 16);
  Access b = a;
  b.storage = f.other;
  EXPECT_EQ(decideSyntactically(a, b, f.loop.get(), std::nullopt), false);
  // A start not affine in the loop variable (a ring slot): undecided.
  Access ring = f.slice(ir::mul(ir::floormod(f.tv(), ir::intImm(2)), 16), 16);
  EXPECT_EQ(decideSyntactically(ring, ring, f.loop.get(), 1), std::nullopt);
  // Different coefficients: the difference depends on p.
  EXPECT_EQ(decideSyntactically(f.slice(f.affine(16, 0), 16), f.slice(f.affine(32, 0), 16),
                                f.loop.get(), 1),
            std::nullopt);
  // Rests that differ by a non-constant: bx·64 vs 0.
  Access blocked = f.slice(ir::add(f.affine(16, 0), ir::mul(ir::varRef(f.bx), 64)), 16);
  EXPECT_EQ(decideSyntactically(a, blocked, f.loop.get(), 0), std::nullopt);
  // The same symbolic rest cancels: A[bx·64 + t·16] vs A[bx·64 + t·16 + 16].
  Access next = f.slice(ir::add(f.affine(16, 16), ir::mul(ir::varRef(f.bx), 64)), 16);
  EXPECT_EQ(decideSyntactically(blocked, next, f.loop.get(), 0), false);
  // next at p, blocked at p + d: 16d - 16 in (-16, 16) only for d = 1.
  EXPECT_EQ(decideSyntactically(next, blocked, f.loop.get(), 1), true);
  EXPECT_EQ(decideSyntactically(next, blocked, f.loop.get(), 2), false);
  EXPECT_EQ(decideSyntactically(blocked, next, f.loop.get(), std::nullopt), false);
  EXPECT_EQ(decideSyntactically(next, blocked, f.loop.get(), std::nullopt), true);
  // Guards: "no" stays proven, "yes" is left to the solver.
  Access guarded = a;
  guarded.guard = {{ir::binary(ir::BinOp::LT, f.tv(), ir::intImm(3)), false, nullptr}};
  EXPECT_EQ(decideSyntactically(guarded, a, f.loop.get(), 0), std::nullopt);
  EXPECT_EQ(decideSyntactically(guarded, f.slice(f.affine(16, 16), 16), f.loop.get(), 0), false);
  // A symbolic trip count: "yes" needs Z3, "no" does not.
  Fixture sym;
  sym.loop->extent = ir::varRef(sym.n);
  Access wide = sym.slice(sym.affine(16, 0), 32);  // meets itself at shift 1
  EXPECT_EQ(decideSyntactically(wide, wide, sym.loop.get(), std::nullopt), std::nullopt);
  EXPECT_EQ(decideSyntactically(a, sym.slice(sym.affine(16, 8), 4), sym.loop.get(), std::nullopt),
            false);
}

TEST(OverlapSyntactic, AgreesWithZ3OnRandomPairs) {
  std::mt19937 rng(20261130);
  std::uniform_int_distribution<int> coef(-3, 3), offset(-24, 24), extent(1, 12), trips(0, 6),
      shiftPick(-1, 4), coin(0, 3);
  int decided = 0, positives = 0, negatives = 0;
  for (int round = 0; round < 150; ++round) {
    Fixture f(trips(rng));
    OverlapOracle z3only(1000, /*syntacticFirst=*/false), withForms(1000);
    auto start = [&](bool twoD) -> std::vector<BoxDim> {
      auto dim = [&] {
        ir::Expr e = ir::add(ir::mul(f.tv(), 4 * coef(rng)), ir::intImm(offset(rng)));
        if (coin(rng) == 0) e = ir::add(e, ir::mul(ir::varRef(f.bx), 8));
        return BoxDim{e, extent(rng), coin(rng) == 0 && twoD};
      };
      if (!twoD) return {dim()};
      return {dim(), dim()};
    };
    bool twoD = coin(rng) < 2;
    Access a, b;
    for (Access* acc : {&a, &b}) {
      acc->kind = AccessKind::Write;
      acc->storage = f.storage;
      acc->buffer = twoD ? f.grid : f.flat;
      acc->box = start(twoD);
    }
    int s = shiftPick(rng);
    std::optional<int64_t> shift = s < 0 ? std::nullopt : std::optional<int64_t>(s);
    bool z3 = z3only.mayOverlap(a, b, f.loop.get(), shift);
    // The oracle (syntactic test with its cache of start forms first) agrees on every pair.
    EXPECT_EQ(withForms.mayOverlap(a, b, f.loop.get(), shift), z3) << "round " << round;
    auto syntactic = decideSyntactically(a, b, f.loop.get(), shift);
    if (!syntactic) continue;
    ++decided;
    (*syntactic ? positives : negatives)++;
    EXPECT_EQ(*syntactic, z3) << "round " << round << " shift " << s << " trips "
                              << asConstInt(f.loop->extent).value();
  }
  // The test means something: most pairs are decided, both ways.
  EXPECT_GT(decided, 50);
  EXPECT_GT(positives, 8);
  EXPECT_GT(negatives, 8);
}
