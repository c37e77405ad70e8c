// Instruction costs (see InstructionCost.h): maps a leaf IR statement to the
// target cost model's inputs (path, bytes, geometry, M/N/K, op counts).
#include "cost/InstructionCost.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "ir/Functor.h"
#include "ir/IROperator.h"

namespace tilesched::cost {

using namespace ir;

namespace {

int64_t dtypeSize(DType t) { return dtypeBytes(t); }

// Reads registers only: constants, loop and block indices, lets and
// T.alloc_var scalars; no load of a buffer in memory.
bool readsOnlyRegisters(const Expr& e) {
  if (!e) return true;
  if (e->kind == ExprKind::Load && e->buffer->storage->scope != MemScope::LocalVar) return false;
  for (const auto& o : e->operands)
    if (!readsOnlyRegisters(o)) return false;
  return true;
}

// A let or a T.alloc_var update computed from registers only: arithmetic the
// scalar unit folds into issuing the instructions that use it
// (InstructionCost::registerOnly).
bool registerArithmetic(const Stmt& s) {
  if (const auto* a = as<AssignStmt>(s))
    return a->var->assumption || readsOnlyRegisters(a->value);  // a T.assume: no instruction
  if (const auto* st = as<StoreStmt>(s))
    return st->buffer->storage->scope == MemScope::LocalVar && st->atomic == AtomicOp::None &&
           !st->prev && readsOnlyRegisters(st->value);
  return false;
}

InstructionCost make(Pipe pipe, int64_t latency = 1, int64_t ii = 1) {
  InstructionCost c;
  c.pipe = pipe;
  c.latency = latency;
  c.ii = ii;
  return c;
}

// Significant extents of a region: leading 1s dropped, at least one entry.
std::vector<int64_t> significantExtents(const Region& r) {
  std::vector<int64_t> e;
  for (const auto& range : r.ranges) e.push_back(range.extent);
  size_t i = 0;
  while (i + 1 < e.size() && e[i] == 1) ++i;
  std::vector<int64_t> out(e.begin() + static_cast<long>(i), e.end());
  if (out.empty()) out.push_back(1);
  return out;
}

// (rows, cols) of a 2-D gemm operand region (leading 1s dropped; a 1-D region
// is one row).
std::pair<int64_t, int64_t> matrixExtents(const Region& r) {
  auto e = significantExtents(r);
  if (e.size() == 1) return {1, e[0]};
  int64_t cols = e.back();
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < e.size(); ++i) rows *= e[i];
  return {rows, cols};
}

bool isOpNode(const Expr& e) {
  return e->kind == ExprKind::Binary || e->kind == ExprKind::Unary || e->kind == ExprKind::Select ||
         e->kind == ExprKind::Cast;
}

VectorOpClass opClass(const Expr& e) {
  if (e->kind == ExprKind::Binary) {
    switch (e->binOp) {
      case BinOp::Div:
      case BinOp::FloorDiv:
      case BinOp::FloorMod:
        return VectorOpClass::DivMod;
      default:
        return VectorOpClass::Simple;
    }
  }
  if (e->kind == ExprKind::Unary) {
    switch (e->unOp) {
      case UnOp::Exp:
      case UnOp::Log:
      case UnOp::Sqrt:
      case UnOp::Rsqrt:
      case UnOp::Tanh:
      case UnOp::Sigmoid:
        return VectorOpClass::Transcendental;
      default:
        return VectorOpClass::Simple;
    }
  }
  return VectorOpClass::Simple;
}

// Counts the ops of the value expressions (not of load/store indices, which
// are address arithmetic) per op class.
class OpCounter : public IRVisitor {
 public:
  std::array<int64_t, kNumVectorOpClasses> counts{};

  void visitExpr(const Expr& e) override {
    if (!e) return;
    if (e->kind == ExprKind::Load) return;  // indices are addresses, not vector work
    if (isOpNode(e)) ++counts[vectorOpClassIndex(opClass(e))];
    for (const auto& o : e->operands) visitExpr(o);
  }

 protected:
  void visitStore(const StoreStmt& s) override { visitExpr(s.value); }
  void visitRegion(const Region&) override {}
};

// Distinct element accesses of a T.Parallel body and the part of each buffer
// they touch: for an access, the product of the extents of the parallel vars
// its indices mention, at most the buffer's size.
class AccessBytes : public IRVisitor {
 public:
  explicit AccessBytes(std::map<int, int64_t> extents) : extents_(std::move(extents)) {}
  int64_t bytes = 0;

  void visitExpr(const Expr& e) override {
    if (!e) return;
    if (e->kind == ExprKind::Load) account(e->buffer, e->operands);
    IRVisitor::visitExpr(e);
  }

 protected:
  void visitStore(const StoreStmt& s) override {
    account(s.buffer, s.indices);
    IRVisitor::visitStore(s);
  }
  void visitParallel(const ParallelStmt& p) override {
    for (size_t i = 0; i < p.vars.size(); ++i) extents_[p.vars[i]->id] = p.extents[i];
    IRVisitor::visitParallel(p);
  }

 private:
  void collectVars(const Expr& e, std::set<int>& out) {
    if (!e) return;
    if (e->kind == ExprKind::VarRef && extents_.count(e->var->id)) out.insert(e->var->id);
    for (const auto& o : e->operands) collectVars(o, out);
  }

  void account(const Buffer& b, const std::vector<Expr>& indices) {
    // A T.alloc_var scalar is a register operand, not vector memory traffic.
    if (b->storage->scope == MemScope::LocalVar) return;
    std::string key = std::to_string(b->id);
    for (const auto& i : indices) key += "|" + printExprKey(i);
    if (!seen_.insert(key).second) return;
    std::set<int> vars;
    for (const auto& i : indices) collectVars(i, vars);
    int64_t elements = 1;
    for (int v : vars) elements *= extents_.at(v);
    if (auto shape = constShape(b))
      elements = std::min(elements, std::max<int64_t>(1, product(*shape)));
    bytes += elements * dtypeSize(b->dtype);
  }

  static std::string printExprKey(const Expr& e);

  std::map<int, int64_t> extents_;
  std::set<std::string> seen_;
};

std::string AccessBytes::printExprKey(const Expr& e) {
  if (!e) return "_";
  std::string s =
      std::to_string(static_cast<int>(e->kind)) + ":" + std::to_string(static_cast<int>(e->binOp)) +
      ":" + std::to_string(static_cast<int>(e->unOp)) + ":" + std::to_string(e->intValue) + ":" +
      std::to_string(e->floatValue) + ":" + (e->var ? std::to_string(e->var->id) : "") + ":" +
      (e->buffer ? std::to_string(e->buffer->id) : "") + "(";
  for (const auto& o : e->operands) s += printExprKey(o) + ",";
  return s + ")";
}

int64_t parallelElements(const ParallelStmt& p) {
  int64_t n = 1;
  for (int64_t e : p.extents) n *= e;
  return n;
}

struct Coster {
  const Target& target;
  const CostOptions& options;
  const CostModelParams& params() const { return target.cost; }

  InstructionCost copy(const CopyStmt& c) const {
    InstructionCost out = make(c.pipe);
    auto path = copyPathFor(c.src.buffer->storage->scope, c.dst.buffer->storage->scope);
    // The front end only builds supported copies; a pair without a path is
    // costed as a vector move on the copy's own pipe.
    CopyPath p = path.value_or(CopyPath::VectorMove);
    CopyGeometry g = copyGeometry(c);
    if (c.dual != CopyStmt::Dual::None) {
      // One FixPipe into both AIVs' UBs: the bandwidth follows the row width
      // of one AIV's half (half the tile's row on a column split, whose
      // halves are then strided in L0C).
      p = CopyPath::L0cToUbDual;
      if (c.dual == CopyStmt::Dual::Cols) {
        auto [rows, cols] = matrixExtents(c.src);
        g.rows = rows;
        g.rowBytes = cols / 2 * dtypeSize(c.src.buffer->dtype);
        g.rowStrided = rows > 1;
      }
    }
    Cost cost = copyCost(params(), p, g.bytes, g.rows, g.rowBytes, g.rowStrided);
    out.latency = cost.latency;
    out.ii = cost.ii;
    out.copyPath = path;
    return out;
  }

  InstructionCost gemm(const GemmStmt& g) const {
    InstructionCost out = make(Pipe::M);
    auto [ar, ac] = matrixExtents(g.a);
    auto [br, bc] = matrixExtents(g.b);
    auto [cr, cc] = matrixExtents(g.c);
    int64_t m = g.transA ? ac : ar;
    int64_t k = g.transA ? ar : ac;
    int64_t n = g.transB ? br : bc;
    if (cr > 0 && cc > 0) {
      m = cr;
      n = cc;
    }
    auto cls = gemmDTypeClass(dtypeName(g.a.buffer->dtype), options.fp32GemmAsHf32)
                   .value_or(DTypeClass::F16);
    Cost c = gemmCost(params(), m, n, k, cls);
    out.latency = c.latency;
    out.ii = c.ii;
    if (g.hasL1Operands()) {
      // MTE1 loads A into L0A, then B into L0B; the second load may start
      // once the first has left the pipe (its II).
      Cost ca = copyCost(params(), CopyPath::L1ToL0A, regionBytes(g.a));
      Cost cb = copyCost(params(), CopyPath::L1ToL0B, regionBytes(g.b));
      out.secondPipe = Pipe::MTE1;
      out.secondIi = ca.ii + cb.ii;
      out.secondLatency = std::max(ca.latency, ca.ii + cb.latency);
    }
    return out;
  }

  InstructionCost fill(const FillStmt& f) const {
    InstructionCost out = make(f.pipe);
    int64_t bytes = regionBytes(f.dst);
    Cost c;
    if (f.pipe == Pipe::V) {
      c = vectorCost(
          params(), elementwiseCycles(params(), VectorOpClass::Simple, f.dst.numElements()), bytes);
    } else {
      // L1 is filled by the MTE2 engine: as fast as a GM->L1 load of the same bytes.
      c = copyCost(params(), CopyPath::GmToL1, bytes);
    }
    out.latency = c.latency;
    out.ii = c.ii;
    return out;
  }

  Cost reduceCost(const ReduceStmt& r) const {
    int64_t elements = r.src.numElements();
    int64_t ops = elementwiseCycles(params(), VectorOpClass::Simple, elements);
    if (r.reduceKind == ReduceKind::AbsSum || r.reduceKind == ReduceKind::AbsMax) ops *= 2;
    int64_t bytes = regionBytes(r.src) + regionBytes(r.dst) * (r.clear ? 1 : 2);
    return vectorCost(params(), ops, bytes);
  }

  Cost parallelCost(const ParallelStmt& p) const {
    int64_t elements = parallelElements(p);
    int64_t ops = elementwiseOpCycles(p.body, elements, target);
    std::map<int, int64_t> extents;
    for (size_t i = 0; i < p.vars.size(); ++i) extents[p.vars[i]->id] = p.extents[i];
    AccessBytes acc(extents);
    acc.visitStmt(p.body);
    return vectorCost(params(), ops, acc.bytes);
  }

  // Cycles of the work inside a VF region without `latency=`.
  int64_t vfWork(const Stmt& s) const {
    if (!s) return 0;
    switch (s->kind) {
      case StmtKind::Seq: {
        int64_t sum = 0;
        for (const auto& c : as<SeqStmt>(s)->stmts) sum += vfWork(c);
        return sum;
      }
      case StmtKind::If: {
        const auto* i = as<IfStmt>(s);
        return 1 + std::max(vfWork(i->thenBody), vfWork(i->elseBody));
      }
      case StmtKind::For: {
        const auto* f = as<ForStmt>(s);
        int64_t trips = std::max<int64_t>(1, asConstInt(f->extent).value_or(1));
        return trips * vfWork(f->body);
      }
      case StmtKind::Parallel:
        return parallelCost(*as<ParallelStmt>(s)).latency;
      case StmtKind::Reduce:
        return reduceCost(*as<ReduceStmt>(s)).latency;
      case StmtKind::Fill:
      case StmtKind::Copy:
        return cost(s).latency;
      case StmtKind::Store:
      case StmtKind::Assign:
        return scalarCost(params(), 1).latency;
      default:
        return 1;
    }
  }

  InstructionCost cost(const Stmt& s) const {
    TS_INTERNAL(s != nullptr, "instructionCost: null statement");
    switch (s->kind) {
      case StmtKind::Copy:
        return copy(*as<CopyStmt>(s));
      case StmtKind::Gemm:
        return gemm(*as<GemmStmt>(s));
      case StmtKind::Fill:
        return fill(*as<FillStmt>(s));
      case StmtKind::Reduce: {
        Cost c = reduceCost(*as<ReduceStmt>(s));
        return make(Pipe::V, c.latency, c.ii);
      }
      case StmtKind::Parallel: {
        Cost c = parallelCost(*as<ParallelStmt>(s));
        return make(Pipe::V, c.latency, c.ii);
      }
      case StmtKind::VFRegion: {
        const auto* vf = as<VFRegionStmt>(s);
        Cost c = vf->latency ? vfRegionCost(*vf->latency) : vfRegionCost(vfWork(vf->body));
        return make(Pipe::V, c.latency, c.ii);
      }
      case StmtKind::Assign:
      case StmtKind::Store: {
        if (registerArithmetic(s)) {
          InstructionCost c = make(Pipe::S, 0, 0);
          c.registerOnly = true;
          return c;
        }
        Cost c = scalarCost(params(), 1);
        return make(Pipe::S, c.latency, c.ii);
      }
      case StmtKind::SetFlag:
        return make(as<SetFlagStmt>(s)->src, 1, 1);
      case StmtKind::WaitFlag:
        return make(as<WaitFlagStmt>(s)->dst, 1, 1);
      case StmtKind::Barrier: {
        const auto* b = as<BarrierStmt>(s);
        return make(b->all ? Pipe::S : b->pipe, 1, 1);
      }
      case StmtKind::Seq:
      case StmtKind::For:
      case StmtKind::If:
        break;
    }
    TS_INTERNAL(false, "instructionCost: not a leaf instruction");
    return make(Pipe::S);
  }
};

}  // namespace

int64_t regionBytes(const Region& region) {
  return region.numElements() * dtypeSize(region.buffer->dtype);
}

int64_t contiguousRunElements(const Region& region) {
  auto shape = constShape(region.buffer);
  const auto& strides = region.buffer->strides;  // T.StridedTensor; empty: dense
  int64_t run = 1;
  for (size_t d = region.ranges.size(); d-- > 0;) {
    int64_t extent = region.ranges[d].extent;
    // A dimension continues the run only where its stride is the run so far:
    // a padded row (stride0 > N) ends it, an innermost stride > 1 makes
    // every element its own run. A stride known only at run time ends it too.
    if (d < strides.size() && extent > 1 && asConstInt(strides[d]).value_or(0) != run) break;
    run *= extent;
    bool covered = shape && d < shape->size() && (*shape)[d] == extent;
    if (!covered) break;
  }
  return std::max<int64_t>(run, 1);
}

CopyGeometry copyGeometry(const CopyStmt& copy) {
  CopyGeometry g;
  g.bytes = regionBytes(copy.src);
  bool dstIsGm = copy.dst.buffer->storage->scope == MemScope::Global;
  const Region& side = dstIsGm ? copy.dst : copy.src;
  int64_t elements = side.numElements();
  int64_t run = std::min(contiguousRunElements(side), std::max<int64_t>(elements, 1));
  g.rows = std::max<int64_t>(1, elements / run);
  g.rowBytes = run * dtypeSize(copy.src.buffer->dtype);
  g.rowStrided = g.rows > 1;
  return g;
}

int64_t elementwiseOpCycles(const Stmt& body, int64_t elements, const Target& target) {
  OpCounter counter;
  counter.visitStmt(body);
  int64_t cycles = 0;
  for (VectorOpClass cls : kAllVectorOpClasses) {
    int64_t n = counter.counts[vectorOpClassIndex(cls)];
    if (n > 0) cycles += n * elementwiseCycles(target.cost, cls, elements);
  }
  return cycles;
}

InstructionCost instructionCost(const Stmt& op, const Target& target, const CostOptions& options) {
  return Coster{target, options}.cost(op);
}

InstructionCost instructionCost(const Stmt& op, const Target& target) {
  CostOptions defaults;
  return instructionCost(op, target, defaults);
}

}  // namespace tilesched::cost
