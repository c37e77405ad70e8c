// The manual form of a mixed cube/vector kernel (SPEC §9.1), for the
// elaborator: `with T.Cube():`, `with T.Vector(vector=2) as sid:`,
// `T.ascend_cross_core_set_flag(mode, pipe, id)` / `..._wait_flag` and
// `T.dual_copy(src, dst)`.
//
// Assumes: called from elabWith / elabTileOp inside a `with T.Kernel` body.
// Guarantees: a core block is an IfStmt over Kernel::ManualCores::core
// (`core == 0` on the AIC, `core >= 1` on the AIVs) marked with its
// CoreScope, so every later pass sees ordinary control flow; a cross-core
// flag is a SetFlag/WaitFlag with crossCoreMode 4 whose pipe is one of its
// block's core; a hardware dual copy is a CopyStmt with `dual` set (L0C ->
// UB inside T.Cube), a software one an ordinary copy per AIV indexed by
// `sid` (inside T.Vector). Everything else is a located error: what the
// upstream front end rejects, plus what the simulator does not model yet
// (modes 0, 1 and 2, T.Vector(vector=1) with a dual copy).
#include <cctype>

#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"
#include "ir/Functor.h"

namespace tilesched::frontend {

using namespace ir;
using K = Value::Kind;

namespace {

const char* scopeText(CoreScope s) {
  return s == CoreScope::Cube ? "'with T.Cube()'" : "'with T.Vector()'";
}

// The pipes of each core kind (SPEC §9.2); S and MTE2 are on both.
bool pipeOnCore(Pipe p, CoreScope s) {
  switch (p) {
    case Pipe::S:
    case Pipe::MTE2:
      return true;
    case Pipe::MTE1:
    case Pipe::M:
    case Pipe::FIX:
      return s == CoreScope::Cube;
    case Pipe::V:
    case Pipe::MTE3:
      return s == CoreScope::Vector;
  }
  return false;
}

// What the hardware calls a scope, as in the cores' descriptions (SPEC §9.2).
const char* unitName(MemScope m) {
  switch (m) {
    case MemScope::Global:
      return "GM";
    case MemScope::UB:
      return "UB";
    case MemScope::L1:
      return "L1";
    case MemScope::L0A:
      return "L0A";
    case MemScope::L0B:
      return "L0B";
    case MemScope::L0C:
      return "L0C";
    case MemScope::Fragment:
      return "a fragment in UB";
    case MemScope::LocalVar:
    case MemScope::Local:
      return "a scalar register";
  }
  return "?";
}

bool vectorMemory(MemScope m) { return m == MemScope::UB || m == MemScope::Fragment; }
bool cubeMemory(MemScope m) {
  return m == MemScope::L1 || m == MemScope::L0A || m == MemScope::L0B || m == MemScope::L0C;
}

// The tile statements of a core block must run on that block's core: the
// memory they touch and the pipe they take say which (SPEC §9.3).
class CoreBlockChecker : public IRVisitor {
 public:
  CoreBlockChecker(DiagnosticEngine& diags, CoreScope scope) : diags_(diags), scope_(scope) {}
  void visitStmt(const Stmt& s) override {
    const StmtNode* outerStmt = stmt_;
    const StmtNode* outerTile = current_;
    stmt_ = s.get();
    IRVisitor::visitStmt(s);
    stmt_ = outerStmt;
    current_ = outerTile;
  }

 protected:
  void visitRegion(const Region& r) override {
    IRVisitor::visitRegion(r);
    if (!current_ || reported_.count(current_)) return;
    MemScope m = r.buffer->storage->scope;
    bool wrong = scope_ == CoreScope::Cube ? vectorMemory(m) : cubeMemory(m);
    if (!wrong || allowedCrossing_) return;
    reported_.insert(current_);
    diags_.error(current_->loc,
                 fmt::format("this statement uses '{}' ({}), which is on the {}, but it is "
                             "inside {}, which runs on the {}",
                             r.buffer->name, unitName(m), otherCoreText(), scopeText(scope_),
                             ownCoreText()));
  }
  void visitCopy(const CopyStmt& c) override {
    MemScope s = c.src.buffer->storage->scope, d = c.dst.buffer->storage->scope;
    // The paths between the cores (SPEC §9.2): FixPipe L0C -> UB from the AIC,
    // MTE3 UB -> L1 from the AIV.
    bool crossing = scope_ == CoreScope::Cube ? s == MemScope::L0C && vectorMemory(d)
                                              : vectorMemory(s) && d == MemScope::L1;
    allowedCrossing_ = crossing;
    leaf(c, c.pipe);
    IRVisitor::visitCopy(c);
    allowedCrossing_ = false;
  }
  void visitGemm(const GemmStmt& g) override {
    leaf(g, Pipe::M);
    IRVisitor::visitGemm(g);
  }
  void visitFill(const FillStmt& f) override {
    // T.clear of L0C is costed on V but belongs to the cube (SPEC §9.3).
    leaf(f, cubeMemory(f.dst.buffer->storage->scope) ? Pipe::S : f.pipe);
    IRVisitor::visitFill(f);
  }
  void visitReduce(const ReduceStmt& r) override {
    leaf(r, Pipe::V);
    IRVisitor::visitReduce(r);
  }
  void visitParallel(const ParallelStmt& p) override {
    leaf(p, Pipe::V);
    IRVisitor::visitParallel(p);
  }
  void visitVFRegion(const VFRegionStmt& v) override {
    leaf(v, Pipe::V);
    IRVisitor::visitVFRegion(v);
  }
  void visitStore(const StoreStmt& s) override {
    IRVisitor::visitStore(s);
    checkScalarBuffer(s.buffer, s, "writes");
  }
  // A scalar read of the other core's memory (`C[0, 0] = temp[0, 0]` in
  // T.Cube) reads storage that core does not have.
  void visitExpr(const Expr& e) override {
    IRVisitor::visitExpr(e);
    if (e && e->kind == ExprKind::Load && stmt_) checkScalarBuffer(e->buffer, *stmt_, "reads");
  }

 private:
  void leaf(const StmtNode& s, Pipe p) {
    current_ = &s;
    if (pipeOnCore(p, scope_) || reported_.count(&s)) return;
    reported_.insert(&s);
    diags_.error(s.loc,
                 fmt::format("this statement runs on pipe {}, which the {} does not have, "
                             "but it is inside {}",
                             pipeName(p),
                             scope_ == CoreScope::Cube ? "cube core (AIC)" : "vector core (AIV)",
                             scopeText(scope_)));
  }
  void checkScalarBuffer(const Buffer& b, const StmtNode& s, const char* verb) {
    if (!b || !b->storage) return;
    MemScope m = b->storage->scope;
    bool wrong = scope_ == CoreScope::Cube ? vectorMemory(m) : cubeMemory(m);
    // A tile statement already reported for its pipe or memory says it all.
    if (!wrong || reported_.count(&s) || (current_ && reported_.count(current_))) return;
    reported_.insert(&s);
    diags_.error(s.loc, fmt::format("this statement {} '{}' ({}), which is on the {}, but it is "
                                    "inside {}, which runs on the {}",
                                    verb, b->name, unitName(m), otherCoreText(), scopeText(scope_),
                                    ownCoreText()));
  }
  const char* ownCoreText() const {
    return scope_ == CoreScope::Cube ? "cube core (AIC)" : "vector cores (AIV)";
  }
  const char* otherCoreText() const {
    return scope_ == CoreScope::Cube ? "vector cores (AIV)" : "cube core (AIC)";
  }

  DiagnosticEngine& diags_;
  CoreScope scope_;
  const StmtNode* current_ = nullptr;  // the innermost tile statement
  const StmtNode* stmt_ = nullptr;     // the innermost statement
  bool allowedCrossing_ = false;
  std::set<const StmtNode*> reported_;
};

// Tile work outside every core block: in the manual form nothing says which
// core runs it.
const StmtNode* firstTileOutsideBlocks(const Stmt& s) {
  if (!s) return nullptr;
  switch (s->kind) {
    case StmtKind::Seq:
      for (const auto& c : as<SeqStmt>(s)->stmts)
        if (const StmtNode* t = firstTileOutsideBlocks(c)) return t;
      return nullptr;
    case StmtKind::For:
      return firstTileOutsideBlocks(as<ForStmt>(s)->body);
    case StmtKind::If: {
      const auto* i = as<IfStmt>(s);
      if (i->coreScope != CoreScope::None) return nullptr;
      if (const StmtNode* t = firstTileOutsideBlocks(i->thenBody)) return t;
      return firstTileOutsideBlocks(i->elseBody);
    }
    case StmtKind::Assign:
      return nullptr;
    case StmtKind::Store: {
      // A scalar register is every core's own; a buffer belongs to one kind.
      MemScope m = as<StoreStmt>(s)->buffer->storage->scope;
      return m == MemScope::LocalVar || m == MemScope::Local ? nullptr : s.get();
    }
    default:
      return s.get();
  }
}

}  // namespace

void Elaborator::elabCoreScope(const py::Expr& call, const std::string& name,
                               const py::WithItem& item, const py::Stmt& s, Env& env,
                               BlockCtx& ctx) {
  requireNotElementwise("'with T." + name + "()'", call.loc, ctx);
  if (ctx.inVF) fail(call.loc, fmt::format("'with T.{}()' cannot be inside a VF region", name));
  if (ctx.coreScope != CoreScope::None)
    fail(call.loc,
         fmt::format("'with T.{}()' cannot be nested inside {}", name, scopeText(ctx.coreScope)));
  if (!kernel_->sidName.empty())
    fail(call.loc, fmt::format("'with T.{}()' is the manual form, which T.MixedKernel does not "
                               "support (it is not supported in manual mode upstream either); "
                               "launch with 'with T.Kernel(n) as bx:'",
                               name));
  if (call.kind != py::ExprKind::Call)
    fail(call.loc, fmt::format("'with T.{0}:' names T.{0} without calling it; write 'with "
                               "T.{0}(){1}:'",
                               name, name == "Vector" ? " as sid" : ""));
  CoreScope scope = name == "Cube" ? CoreScope::Cube : CoreScope::Vector;
  int64_t vector = 2;
  if (scope == CoreScope::Cube) {
    checkKeywords(call, "T.Cube", {});
    if (call.kind == py::ExprKind::Call && !call.elts.empty())
      fail(call.loc, "T.Cube() takes no arguments");
    if (item.target) fail(item.target->loc, "'with T.Cube()' binds no name; drop 'as'");
  } else {
    checkKeywords(call, "T.Vector", {"vector"});
    const py::Expr* v = nullptr;
    if (call.kind == py::ExprKind::Call) {
      if (call.elts.size() > 1) fail(call.loc, "T.Vector takes one argument, vector=1 or 2");
      v = call.elts.empty() ? nullptr : call.elts[0].get();
      if (const py::Keyword* k = keyword(call, "vector")) {
        if (v) fail(k->loc, "T.Vector got vector both by position and as vector=");
        v = k->value.get();
      }
    }
    if (v) {
      vector = toConstInt(eval(*v, env), v->loc, "vector");
      if (vector != 1 && vector != 2)
        fail(v->loc, fmt::format("T.Vector takes vector=1 or vector=2 (the AIVs that run the "
                                 "block), got {}",
                                 vector));
    }
    if (item.target && item.target->kind != py::ExprKind::Name)
      fail(item.target->loc, "'with T.Vector() as sid:' binds one name, the vector sub-core index");
  }
  if (!kernel_->manualCores) {
    vectorBlockSeen_ = false;
    Kernel::ManualCores mc;
    mc.core = makeVar("core", DType::Int32, VarKind::BlockIdx);
    mc.sid = makeVar(item.target && scope == CoreScope::Vector ? item.target->id : "sid",
                     DType::Int32, VarKind::BlockIdx);
    mc.vectorCores = static_cast<int>(vector);
    mc.loc = call.loc;
    kernel_->manualCores = mc;
  }
  Kernel::ManualCores& mc = *kernel_->manualCores;
  if (scope == CoreScope::Vector) {
    if (vectorBlockSeen_ && mc.vectorCores != vector)
      fail(call.loc, fmt::format("every T.Vector block of a kernel runs on the same AIVs, but "
                                 "this one asks for vector={} and an earlier one for vector={}",
                                 vector, mc.vectorCores));
    mc.vectorCores = static_cast<int>(vector);
    vectorBlockSeen_ = true;
  }
  Expr cond = scope == CoreScope::Cube ? binary(BinOp::EQ, varRef(mc.core), intImm(0))
                                       : binary(BinOp::GE, varRef(mc.core), intImm(1));
  std::optional<Value> savedSid;
  std::string sidName = item.target && scope == CoreScope::Vector ? item.target->id : "";
  if (!sidName.empty()) {
    if (auto old = env.names.find(sidName); old != env.names.end()) savedSid = old->second;
    env.bind(sidName, Value::irExpr(varRef(mc.sid)));
  }
  std::vector<Stmt> out;
  BlockCtx inner = ctx;
  inner.out = &out;
  inner.coreScope = scope;
  elabScopedBlock(s.body, env, inner, name == "Cube" ? "T.Cube block" : "T.Vector block", s.loc,
                  /*loop=*/false);
  if (!sidName.empty()) {
    if (savedSid)
      env.names[sidName] = *savedSid;
    else
      env.names.erase(sidName);
  }
  auto block = std::make_shared<IfStmt>(cond, std::make_shared<SeqStmt>(std::move(out), s.loc),
                                        nullptr, s.loc);
  block->coreScope = scope;
  CoreBlockChecker checker(diags_, scope);
  checker.visitStmt(block->thenBody);
  ctx.out->push_back(block);
}

void Elaborator::elabCrossCoreFlag(const std::string& name, const py::Expr& call, Env& env,
                                   BlockCtx& ctx) {
  requireNotElementwise("T." + name, call.loc, ctx);
  checkKeywords(call, "T." + name, {});
  if (name == "ascend_sync_inter_arrive" || name == "ascend_sync_inter_wait")
    fail(call.loc, fmt::format("T.{} (a mode-0 barrier across every core of the launch) is not "
                               "supported yet: the simulator runs one core group at a time",
                               name));
  bool set = name == "ascend_cross_core_set_flag";
  auto args = positional(call, env);
  if (args.size() != 3 || args[1].kind != K::Str)
    fail(call.loc,
         fmt::format("T.{} takes (mode, pipe, flag_id) with a pipe such as \"PIPE_FIX\"", name));
  if (ctx.inVF) fail(call.loc, fmt::format("T.{} is not allowed inside a VF region", name));
  if (ctx.coreScope == CoreScope::None)
    fail(call.loc, fmt::format("T.{} synchronises the cube core with the vector cores: write it "
                               "inside 'with T.Cube():' or 'with T.Vector() as sid:'",
                               name));
  int64_t mode = toConstInt(args[0], argLoc(call, 0), "the cross-core mode");
  if (mode != 0 && mode != 1 && mode != 2 && mode != 4)
    fail(argLoc(call, 0),
         fmt::format("cross-core mode {} does not exist; the modes are 0 (all cores of the "
                     "launch), 1 (the AIVs of a group), 2 (AIC with both AIVs) and 4 (AIC with "
                     "one AIV)",
                     mode));
  if (mode != 4)
    fail(argLoc(call, 0),
         fmt::format("cross-core mode {} is not supported yet; mode 4 (the AIC with one AIV, "
                     "ids + 16 * sid on the AIC side) is",
                     mode));
  std::string text = args[1].s;
  for (char& ch : text) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::string bare = text.rfind("PIPE_", 0) == 0 ? text.substr(5) : text;
  std::optional<Pipe> pipe = parsePipe(bare);
  SourceLoc pipeLoc = argLoc(call, 1);
  if (!pipe)
    fail(pipeLoc, fmt::format("'{}' is not a pipe; use one such as \"PIPE_FIX\"", args[1].s));
  if (!pipeOnCore(*pipe, ctx.coreScope))
    fail(pipeLoc,
         fmt::format("pipe {} is not on the {}, which runs {}", pipeName(*pipe),
                     ctx.coreScope == CoreScope::Cube ? "cube core (AIC)" : "vector core (AIV)",
                     scopeText(ctx.coreScope)));
  Expr id = toExpr(args[2], argLoc(call, 2));
  if (isFloat(id->dtype)) fail(argLoc(call, 2), "a flag id must be an integer");
  int64_t limit = ctx.coreScope == CoreScope::Cube ? 32 : 16;
  if (auto c = asConstInt(id); c && (*c < 0 || *c >= limit))
    fail(argLoc(call, 2),
         fmt::format("cross-core flag id {} is out of range: the pool has 16 slots, addressed "
                     "0-15 from an AIV and 0-31 (id + 16 * sid) from the AIC",
                     *c));
  if (set) {
    auto f = std::make_shared<SetFlagStmt>(*pipe, *pipe, id, call.loc);
    f->crossCoreMode = static_cast<int8_t>(mode);
    ctx.out->push_back(f);
  } else {
    auto f = std::make_shared<WaitFlagStmt>(*pipe, *pipe, id, call.loc);
    f->crossCoreMode = static_cast<int8_t>(mode);
    ctx.out->push_back(f);
  }
}

namespace {

std::string extentList(const Region& r) {
  std::string s = "(";
  for (size_t i = 0; i < r.ranges.size(); ++i)
    s += (i ? ", " : "") + std::to_string(r.ranges[i].extent);
  return s + (r.ranges.size() == 1 ? ",)" : ")");
}

// The axis the half of a dual copy is cut on, from extents `full` and `half`
// (SPEC §9.1): 1-D the one extent, else exactly one of the two trailing
// extents exactly halved, every other extent equal. -1: none.
int splitAxis(const std::vector<int64_t>& full, const std::vector<int64_t>& half) {
  if (full.size() != half.size() || full.empty()) return -1;
  int axis = -1;
  size_t r = full.size();
  for (size_t d = 0; d < r; ++d) {
    if (full[d] == half[d]) continue;
    bool trailing = r == 1 || d + 2 >= r;
    if (!trailing || full[d] != 2 * half[d] || axis >= 0) return -1;
    axis = static_cast<int>(d);
  }
  return axis;
}

// How many leading extents of 1 to drop, keeping at least one extent.
size_t leadingOnes(const std::vector<int64_t>& e) {
  size_t i = 0;
  while (i + 1 < e.size() && e[i] == 1) ++i;
  return i;
}

std::vector<int64_t> regionExtents(const Region& r) {
  std::vector<int64_t> e;
  for (const auto& range : r.ranges) e.push_back(range.extent);
  return e;
}

std::optional<std::vector<int64_t>> constantShape(const Buffer& b) {
  std::vector<int64_t> e;
  for (const auto& d : b->shape) {
    auto c = asConstInt(d);
    if (!c) return std::nullopt;
    e.push_back(*c);
  }
  return e;
}

}  // namespace

// `T.dual_copy(src, dst)` (SPEC §9.1).
void Elaborator::elabDualCopy(const py::Expr& call, Env& env, BlockCtx& ctx) {
  requireNotElementwise("T.dual_copy", call.loc, ctx);
  checkKeywords(call, "T.dual_copy", {"unit_flag_ctrl"});
  auto args = positional(call, env);
  if (args.size() != 2)
    fail(call.loc,
         fmt::format("T.dual_copy takes a source and a destination ({} given)", args.size()));
  if (ctx.inVF) fail(call.loc, "T.dual_copy is not allowed inside a VF region");
  Region src = toRegion(args[0], argLoc(call, 0), "T.dual_copy source");
  Region dst = toRegion(args[1], argLoc(call, 1), "T.dual_copy destination");
  MemScope s = src.buffer->storage->scope, d = dst.buffer->storage->scope;
  bool hardware = s == MemScope::L0C && d == MemScope::UB;
  bool srcFull = hardware || (s == MemScope::Global && d == MemScope::UB);
  bool dstFull = s == MemScope::UB && (d == MemScope::Global || d == MemScope::L1);
  if (!srcFull && !dstFull)
    fail(call.loc,
         fmt::format("T.dual_copy supports only L0C->UB and GM->UB (the source is the whole "
                     "tile) and UB->GM and UB->L1 (the destination is the whole tile), not {} -> "
                     "{}",
                     unitName(s), unitName(d)));
  const Region& full = srcFull ? src : dst;
  const Region& half = srcFull ? dst : src;
  // Leading extents of 1 (a slot of a ring, `ub[b, :, :]`) do not count: the
  // regions line up from the right.
  std::vector<int64_t> fe = regionExtents(full), he = regionExtents(half);
  size_t fOff = leadingOnes(fe), hOff = leadingOnes(he);
  fe.erase(fe.begin(), fe.begin() + static_cast<long>(fOff));
  he.erase(he.begin(), he.begin() + static_cast<long>(hOff));
  if ((fe.size() == 1) != (he.size() == 1))
    fail(call.loc, fmt::format("T.dual_copy needs both regions 1-D or both at least 2-D, got {} "
                               "and {}",
                               extentList(src), extentList(dst)));
  int axis = splitAxis(fe, he);
  if (axis < 0 && fOff == 0 && hOff == 0) {
    // Dynamic tails: the allocation shapes decide when the regions do not.
    auto fs = constantShape(full.buffer), hs = constantShape(half.buffer);
    if (fs && hs && fs->size() == fe.size() && hs->size() == he.size()) axis = splitAxis(*fs, *hs);
    if (axis >= 0 && fe[static_cast<size_t>(axis)] != 2 * he[static_cast<size_t>(axis)]) axis = -1;
  }
  // The other extents of the two regions must agree whichever way the axis came.
  for (size_t i = 0; axis >= 0 && i < fe.size(); ++i)
    if (static_cast<int>(i) != axis && (i >= he.size() || fe[i] != he[i])) axis = -1;
  if (axis < 0)
    fail(call.loc,
         fmt::format(
             "cannot infer the dual_copy split direction from {} {} and {} {}: {} must "
             "have an exact 2:1 extent ratio between the whole tile and the half",
             src.buffer->name, extentList(src), dst.buffer->name, extentList(dst),
             fe.size() == 1 ? "the sole dimension" : "exactly one of the two trailing dimensions"));
  int64_t halfExtent = he[static_cast<size_t>(axis)];
  size_t fullAxis = fOff + static_cast<size_t>(axis);
  bool rows = fe.size() >= 2 && static_cast<size_t>(axis) + 2 == fe.size();
  if (hardware) {
    if (fe.size() < 2)
      fail(call.loc, "a hardware dual_copy (L0C -> UB) needs at least 2-D regions");
    if (src.buffer->dtype != dst.buffer->dtype)
      fail(call.loc, fmt::format("a dual_copy that converts ({} -> {}) is not supported yet; copy "
                                 "to a {} UB buffer and cast on the vector cores",
                                 dtypeName(src.buffer->dtype), dtypeName(dst.buffer->dtype),
                                 dtypeName(src.buffer->dtype)));
    if (!rows && full.ranges.back().extent % 32 != 0)
      fail(call.loc, fmt::format("a dual_copy split on N needs N to be a multiple of 32, got {}",
                                 full.ranges.back().extent));
    if (ctx.coreScope != CoreScope::Cube)
      fail(call.loc,
           kernel_->manualCores
               ? "a hardware dual_copy (L0C -> UB) is a FixPipe of the cube core: write it "
                 "inside 'with T.Cube():'"
               : "T.dual_copy outside 'with T.Cube():' / 'with T.Vector():' blocks is not "
                 "supported yet (the compiler would assign it to the core group and "
                 "synchronise it); write the manual form");
    auto op = std::make_shared<CopyStmt>(src, dst, Pipe::FIX, call.loc);
    op->dual = rows ? CopyStmt::Dual::Rows : CopyStmt::Dual::Cols;
    for (const auto& kw : call.keywords)
      op->kwargs.push_back({kw.name, kwargText(eval(*kw.value, env))});
    ctx.out->push_back(op);
    return;
  }
  if (ctx.coreScope != CoreScope::Vector)
    fail(call.loc,
         kernel_->manualCores || !kernel_->sidName.empty()
             ? "a software dual_copy (one copy per AIV, indexed by sid) must be inside "
               "'with T.Vector() as sid:'"
             : "T.dual_copy outside 'with T.Cube():' / 'with T.Vector():' blocks is not "
               "supported yet (the compiler would assign it to the core group and synchronise "
               "it); write the manual form");
  if (kernel_->manualCores->vectorCores != 2)
    fail(call.loc,
         "a software dual_copy splits the tile across two AIVs, but this T.Vector "
         "block runs on one (vector=1)");
  if (s == MemScope::UB && d == MemScope::L1 && fe.size() == 1 &&
      (halfExtent * dtypeBytes(src.buffer->dtype)) % 32 != 0)
    fail(call.loc, fmt::format("a UB -> L1 dual_copy moves a multiple of 32 bytes per AIV, got {}",
                               halfExtent * dtypeBytes(src.buffer->dtype)));
  // AIV sid handles [sid * h, (sid + 1) * h) of the whole tile on the split axis.
  Region part = full;
  Range& r = part.ranges[fullAxis];
  r.min = binary(BinOp::Add, r.min,
                 binary(BinOp::Mul, varRef(kernel_->manualCores->sid), intImm(halfExtent)));
  r.extent = halfExtent;
  Pipe pipe = s == MemScope::Global ? Pipe::MTE2 : Pipe::MTE3;
  auto op = srcFull ? std::make_shared<CopyStmt>(part, dst, pipe, call.loc)
                    : std::make_shared<CopyStmt>(src, part, pipe, call.loc);
  ctx.out->push_back(op);
}

namespace {

// What reaches AIV 1 only, the first of each kind under a kernel body: a
// hardware dual copy (its second half) and a cross-core flag whose constant
// id is 16-31 (the AIC's ids for AIV 1; an AIV's own stop at 15).
struct ForAiv1 {
  const StmtNode* dualCopy = nullptr;
  const StmtNode* flag = nullptr;
};
ForAiv1 firstForAiv1(const Stmt& body) {
  ForAiv1 found;
  forEachStmt(body, [&](const Stmt& x) {
    Expr id;
    if (const auto* c = as<CopyStmt>(x); c && c->dual != CopyStmt::Dual::None) {
      if (!found.dualCopy) found.dualCopy = x.get();
    } else if (const auto* f = as<SetFlagStmt>(x); f && f->crossCore()) {
      id = f->eventId;
    } else if (const auto* w = as<WaitFlagStmt>(x); w && w->crossCore()) {
      id = w->eventId;
    }
    auto c = id ? asConstInt(id) : std::nullopt;
    if (c && *c >= 16 && !found.flag) found.flag = x.get();
  });
  return found;
}

}  // namespace

void Elaborator::checkManualCores(const Kernel& k) {
  if (!k.manualCores) return;
  if (const StmtNode* t = firstTileOutsideBlocks(k.body))
    error(t->loc,
          "in a kernel with 'with T.Cube()' / 'with T.Vector()' blocks every tile "
          "operation and every store to a buffer belongs to one of them (nothing says which "
          "core runs this one)");
  if (k.manualCores->vectorCores != 1) return;
  ForAiv1 aiv1 = firstForAiv1(k.body);
  if (aiv1.dualCopy)
    error(aiv1.dualCopy->loc,
          "this dual_copy gives half of the tile to each of two AIVs, but the kernel's "
          "T.Vector blocks run on one (vector=1): the second half would reach no core");
  if (aiv1.flag)
    error(aiv1.flag->loc,
          "this cross-core flag id (16-31: id + 16 * sid with sid 1) addresses AIV 1, but "
          "the kernel's T.Vector blocks run on one (vector=1): use 0-15");
}

}  // namespace tilesched::frontend
