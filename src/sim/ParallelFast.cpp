// T.Parallel a tile at a time (Machine::parallelFast, see Machine.h): a body
// of affine stores compiled into columns and evaluated 2048 elements at a
// time.
// Assumes: called by Machine::exec for a T.Parallel when fastPaths is on.
// Guarantees: the element walk's values, accesses, shadow bytes and loop
// variables; or false, having changed nothing, and the walk runs (the
// conditions and why they suffice are below).
#include "sim/Machine.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "ir/IROperator.h"
#include "sim/MachineImpl.h"

namespace tilesched::sim {

using namespace ir;

// ---------------------------------------------------------------- T.Parallel, tile at a time
//
// A T.Parallel whose body is a sequence of stores with affine indices
// (`var + invariant` or invariant per dimension) is evaluated a chunk of
// elements at a time: the body's expressions become a post-order list of
// nodes, each computing a column of values with the same per-element
// functions as `eval` (unaryValue, floatBinary, intBinary, compareValues,
// convert), so every element gets the bits the element-at-a-time walk gives.
// The order of work changes (statement by statement over a chunk instead of
// element by element), which cannot change a value because:
//  - every storage the body writes is accessed only through one buffer and
//    one index tuple, written injectively (each element its own location) —
//    or it is accessed by its single store and nothing else (last write wins
//    in both orders);
//  - nothing can fail: indices are proved in bounds for the whole tile, integer
//    division only by a nonzero invariant, no poison anywhere (checked first),
//    loads are never conditional (no loads under T.if_then_else, `and`, `or`).
// Two shapes beyond plain stores:
//  - a guard: the body is `if COND:` over the stores, COND a conjunction of
//    `var < c`, `var <= c`, `c > var`, `c >= var` (c invariant) — the upper
//    bounds clamp the variables' extents, so the elements the walk skips are
//    never touched (their accesses are not recorded either);
//  - a fold: a store `r[c..] = r[c..] op x` (op + - * min max, the load on the
//    left as `+=` writes it) at an invariant index, whose storage nothing else
//    in the body touches: x is evaluated a chunk at a time, then folded into
//    r element by element in index order through memory (load, op, store as
//    the walk does), so the result has the walk's bits.
// Anything else returns false before touching memory, and the general path runs.

namespace {

// A vector of at most N elements in place: the per-access arrays, so a
// program reused from the scratch allocates nothing (ranks beyond N decline).
template <class T, size_t N>
class SmallVec {
 public:
  static constexpr size_t kCapacity = N;
  size_t size() const { return size_; }
  bool full() const { return size_ == N; }
  void push_back(const T& v) { items_[size_++] = v; }
  void assign(size_t n, const T& v) {
    size_ = n;
    std::fill(items_.begin(), items_.begin() + static_cast<long>(n), v);
  }
  T& operator[](size_t i) { return items_[i]; }
  const T& operator[](size_t i) const { return items_[i]; }
  const T* begin() const { return items_.data(); }
  const T* end() const { return items_.data() + size_; }

 private:
  std::array<T, N> items_{};
  size_t size_ = 0;
};
constexpr size_t kMaxTileRank = 8;

struct TileDim {
  int var = -1;   // parallel variable index, or -1 for an invariant index
  int64_t c = 0;  // added invariant
  // T.min(var + c, hi): the index stops at hi (reads only). INT64_MAX: none.
  int64_t hi = INT64_MAX;
  bool clamped() const { return hi != INT64_MAX; }
};

struct TileAccess {
  Buffer buffer;
  int storage = -1;
  int elemBytes = 1;
  SmallVec<TileDim, kMaxTileRank> dims;
  int stmt = 0;  // index of the store statement it belongs to
  bool write = false;
  int64_t base = 0;                           // byte offset of the invariant part
  SmallVec<int64_t, kMaxTileRank> varStride;  // bytes per step of each parallel variable
  // Clamped dimensions (var, c, hi, bytes per index step), added per element.
  struct Clamp {
    int var;
    int64_t c, hi, stride;
  };
  SmallVec<Clamp, kMaxTileRank> clamps;
  // Read by a load under a guard (a select's branch, the right of and/or):
  // recorded per element evaluated, not as a box.
  bool guarded = false;
  int64_t safe = 0;  // byte offset of an element in bounds (the box's first)
};

// Guard: 1 where a subexpression is evaluated by the walk: truthy(a) (not
// truthy(a) when negated) and, under an enclosing guard b, b's value too.
enum class TileKind { Const, Var, Load, Cast, Unary, Binary, AndOr, Select, Guard };

struct TileNode {
  TileKind kind = TileKind::Const;
  bool isFloat = false;
  DType dtype = DType::Int32;
  UnOp unOp = UnOp::Neg;
  BinOp binOp = BinOp::Add;
  int a = -1, b = -1, c = -1;  // operand nodes
  Scalar constant;
  int var = -1;         // Var
  int access = -1;      // Load
  int guard = -1;       // Load: the Guard node of the elements it reads, or -1 (all)
  bool negate = false;  // Guard
  // The node's column (chunk elements) in the Machine's scratch arena.
  double* f = nullptr;
  int64_t* i = nullptr;
  Scalar get(size_t e) const {
    Scalar s;
    s.isFloat = isFloat;
    if (isFloat)
      s.f = f[e];
    else
      s.i = i[e];
    return s;
  }
  void set(size_t e, const Scalar& v) {
    if (isFloat)
      f[e] = v.f;
    else
      i[e] = v.i;
  }
};

struct TileProgram {
  std::vector<int> varIds;  // VarNode ids of the parallel variables
  std::vector<int64_t> extents;
  std::vector<TileNode> nodes;
  std::vector<TileAccess> accesses;
  std::vector<int64_t> walkExtents;  // before the guard's clamp
  struct Store {
    int access = -1;
    int value = -1;  // root node
    int firstNode = 0;
    bool fold = false;  // r = r op x: the root's operand a loads r, b is x
    SourceLoc loc;
  };
  std::vector<Store> stores;
  void clear() {
    varIds.clear();
    extents.clear();
    walkExtents.clear();
    nodes.clear();
    accesses.clear();
    stores.clear();
  }
  int parallelVar(const Var& v) const {
    for (size_t k = 0; k < varIds.size(); ++k)
      if (varIds[k] == v->id) return static_cast<int>(k);
    return -1;
  }
};

bool mentionsTileWork(const TileProgram& p, const Expr& e) {
  if (e->kind == ExprKind::Load) return true;
  if (e->kind == ExprKind::VarRef) return p.parallelVar(e->var) >= 0;
  for (const auto& o : e->operands)
    if (mentionsTileWork(p, o)) return true;
  return false;
}

bool hasLoad(const Expr& e) {
  if (e->kind == ExprKind::Load) return true;
  for (const auto& o : e->operands)
    if (hasLoad(o)) return true;
  return false;
}

// The body: stores only (or one guard over stores, into *guard). False for
// anything else, or a store that also sets a scalar (the general path).
bool collectStores(const Stmt& s, std::vector<const StoreStmt*>& stores,
                   const IfStmt** guard = nullptr) {
  if (!s) return true;
  if (guard && s->kind == StmtKind::If) {
    const auto* i = as<IfStmt>(s);
    if (i->elseBody || !stores.empty()) return false;
    *guard = i;
    return collectStores(i->thenBody, stores) && !stores.empty();
  }
  if (guard && s->kind == StmtKind::Seq && as<SeqStmt>(s)->stmts.size() == 1)
    return collectStores(as<SeqStmt>(s)->stmts.front(), stores, guard);
  if (s->kind == StmtKind::Store) {
    stores.push_back(as<StoreStmt>(s));
    return !stores.back()->prev;  // it also sets a scalar: the general path
  }
  if (s->kind == StmtKind::Seq) {
    for (const auto& c : as<SeqStmt>(s)->stmts)
      if (!collectStores(c, stores)) return false;
    return true;
  }
  return false;
}

bool sameDims(const TileAccess& x, const TileAccess& y) {
  if (x.buffer != y.buffer || x.dims.size() != y.dims.size()) return false;
  for (size_t d = 0; d < x.dims.size(); ++d)
    if (x.dims[d].var != y.dims[d].var || x.dims[d].c != y.dims[d].c ||
        x.dims[d].hi != y.dims[d].hi)
      return false;
  return true;
}

// Storages the body writes: one buffer, one index tuple, injective writes
// (unless the store is the storage's only access).
bool writesSeparate(const TileProgram& prog) {
  std::vector<bool> folded(prog.accesses.size(), false);
  for (const auto& st : prog.stores) {
    if (!st.fold) continue;
    const TileNode& load =
        prog.nodes[static_cast<size_t>(prog.nodes[static_cast<size_t>(st.value)].a)];
    // Only the fold's own load and store touch its storage.
    const TileAccess& w = prog.accesses[static_cast<size_t>(st.access)];
    for (size_t k = 0; k < prog.accesses.size(); ++k)
      if (prog.accesses[k].storage == w.storage && static_cast<int>(k) != st.access &&
          static_cast<int>(k) != load.access)
        return false;
    folded[static_cast<size_t>(st.access)] = true;
  }
  for (size_t k = 0; k < prog.accesses.size(); ++k) {
    const auto& w = prog.accesses[k];
    if (!w.write || folded[k]) continue;
    int count = 0;
    for (const auto& x : prog.accesses) {
      if (x.storage != w.storage) continue;
      ++count;
      if (!sameDims(w, x)) return false;
    }
    if (count > 1)
      for (size_t v = 0; v < prog.extents.size(); ++v)
        if (prog.extents[v] > 1 && w.varStride[v] == 0) return false;
  }
  return true;
}

// The index range [lo, hi] dimension d takes over the tile.
std::pair<int64_t, int64_t> dimRange(const TileProgram& prog, const TileDim& d) {
  int64_t last = d.var >= 0 ? d.c + prog.extents[static_cast<size_t>(d.var)] - 1 : d.c;
  return {std::min(d.c, d.hi), std::min(last, d.hi)};
}

// Region (box) of an access: exact, as each variable indexes at most one
// dimension (a clamped one takes every index from its start to the clamp).
// The region is a per-thread scratch (its vectors keep their capacity, so a
// statement allocates nothing), valid until the next call.
const ResolvedRegion& box(const TileProgram& prog, const TileAccess& a) {
  thread_local ResolvedRegion r;
  r.buffer = a.buffer;
  r.mins.clear();
  r.extents.clear();
  for (const auto& d : a.dims) {
    auto [lo, hi] = dimRange(prog, d);
    r.mins.push_back(lo);
    r.extents.push_back(hi - lo + 1);
  }
  return r;
}

// Fills the parallel variables' columns for the next n elements: runs along
// the innermost variable, the odometer `idx` stepping between them.
void fillVarColumns(const std::vector<int64_t>& extents, size_t n, std::vector<int64_t>& idx,
                    std::vector<std::vector<int64_t>>& varCol) {
  size_t rank = extents.size();
  for (size_t e = 0; e < n;) {
    // A run along the innermost variable, then the odometer steps.
    size_t run = static_cast<size_t>(
        std::min<int64_t>(extents[rank - 1] - idx[rank - 1], static_cast<int64_t>(n - e)));
    for (size_t d = 0; d + 1 < rank; ++d)
      std::fill(varCol[d].begin() + static_cast<long>(e),
                varCol[d].begin() + static_cast<long>(e + run), idx[d]);
    for (size_t k = 0; k < run; ++k)
      varCol[rank - 1][e + k] = idx[rank - 1] + static_cast<int64_t>(k);
    e += run;
    idx[rank - 1] += static_cast<int64_t>(run);
    for (size_t d = rank; d-- > 0;) {
      if (idx[d] < extents[d]) break;
      idx[d] = 0;
      if (d > 0) ++idx[d - 1];
    }
  }
}

// The byte offsets of access `a` for the n elements of the variables' columns.
void tileOffsets(const TileAccess& a, size_t n, const std::vector<std::vector<int64_t>>& varCol,
                 std::vector<int64_t>& offs) {
  size_t rank = a.varStride.size();  // varCol may hold more (scratch)
  for (size_t e = 0; e < n; ++e) offs[e] = a.base;
  for (size_t d = 0; d < rank; ++d) {
    int64_t s = a.varStride[d];
    if (s == 0) continue;
    const int64_t* v = varCol[d].data();
    for (size_t e = 0; e < n; ++e) offs[e] += v[e] * s;
  }
  for (const auto& c : a.clamps) {
    const int64_t* v = varCol[static_cast<size_t>(c.var)].data();
    for (size_t e = 0; e < n; ++e) offs[e] += std::min(v[e] + c.c, c.hi) * c.stride;
  }
}

// Comparison columns of two int or two float columns (compareValues).
template <class T>
void compareColumn(BinOp op, const T* x, const T* y, int64_t* out, size_t n) {
  switch (op) {
    case BinOp::EQ:
      for (size_t e = 0; e < n; ++e) out[e] = x[e] == y[e];
      break;
    case BinOp::NE:
      for (size_t e = 0; e < n; ++e) out[e] = x[e] != y[e];
      break;
    case BinOp::LT:
      for (size_t e = 0; e < n; ++e) out[e] = x[e] < y[e];
      break;
    case BinOp::LE:
      for (size_t e = 0; e < n; ++e) out[e] = x[e] <= y[e];
      break;
    case BinOp::GT:
      for (size_t e = 0; e < n; ++e) out[e] = x[e] > y[e];
      break;
    default:
      for (size_t e = 0; e < n; ++e) out[e] = x[e] >= y[e];
      break;
  }
}

// Column t = x op y over n elements.
void binaryColumn(TileNode& t, const TileNode& x, const TileNode& y, size_t n) {
  BinOp op = t.binOp;
  if (isComparison(op) && !x.isFloat && !y.isFloat) {
    compareColumn(op, x.i, y.i, t.i, n);
  } else if (isComparison(op) && x.isFloat && y.isFloat) {
    compareColumn(op, x.f, y.f, t.i, n);
  } else if (isComparison(op)) {
    for (size_t e = 0; e < n; ++e) t.i[e] = detail::compareValues(op, x.get(e), y.get(e));
  } else if (!t.isFloat && !x.isFloat && !y.isFloat && t.dtype == DType::Int32 &&
             (op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::Min ||
              op == BinOp::Max)) {
    // intBinary for int32: the operation in 64-bit two's complement, wrapped.
    const int64_t* xs = x.i;
    const int64_t* ys = y.i;
    int64_t* out = t.i;
    auto wrap = [](uint64_t r) { return static_cast<int64_t>(static_cast<int32_t>(r)); };
    switch (op) {
      case BinOp::Add:
        for (size_t e = 0; e < n; ++e)
          out[e] = wrap(static_cast<uint64_t>(xs[e]) + static_cast<uint64_t>(ys[e]));
        break;
      case BinOp::Sub:
        for (size_t e = 0; e < n; ++e)
          out[e] = wrap(static_cast<uint64_t>(xs[e]) - static_cast<uint64_t>(ys[e]));
        break;
      case BinOp::Mul:
        for (size_t e = 0; e < n; ++e)
          out[e] = wrap(static_cast<uint64_t>(xs[e]) * static_cast<uint64_t>(ys[e]));
        break;
      case BinOp::Min:
        for (size_t e = 0; e < n; ++e) out[e] = wrap(static_cast<uint64_t>(std::min(xs[e], ys[e])));
        break;
      default:
        for (size_t e = 0; e < n; ++e) out[e] = wrap(static_cast<uint64_t>(std::max(xs[e], ys[e])));
        break;
    }
  } else if (t.isFloat && t.dtype == DType::Float32 && x.isFloat && y.isFloat &&
             (op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::Div ||
              op == BinOp::Min || op == BinOp::Max)) {
    // floatBinary for binary32: operands to float, one float op.
    const double* xs = x.f;
    const double* ys = y.f;
    double* out = t.f;
    switch (op) {
      case BinOp::Add:
        for (size_t e = 0; e < n; ++e)
          out[e] = static_cast<float>(xs[e]) + static_cast<float>(ys[e]);
        break;
      case BinOp::Sub:
        for (size_t e = 0; e < n; ++e)
          out[e] = static_cast<float>(xs[e]) - static_cast<float>(ys[e]);
        break;
      case BinOp::Mul:
        for (size_t e = 0; e < n; ++e)
          out[e] = static_cast<float>(xs[e]) * static_cast<float>(ys[e]);
        break;
      case BinOp::Min:  // floatBinary's order of comparison (NaN operands alike)
        for (size_t e = 0; e < n; ++e) {
          float a = static_cast<float>(xs[e]), b = static_cast<float>(ys[e]);
          out[e] = b < a ? b : a;
        }
        break;
      case BinOp::Max:
        for (size_t e = 0; e < n; ++e) {
          float a = static_cast<float>(xs[e]), b = static_cast<float>(ys[e]);
          out[e] = a < b ? b : a;
        }
        break;
      default:
        for (size_t e = 0; e < n; ++e)
          out[e] = static_cast<float>(xs[e]) / static_cast<float>(ys[e]);
        break;
    }
  } else if (t.isFloat) {
    for (size_t e = 0; e < n; ++e)
      t.f[e] = detail::floatBinary(op, x.get(e).asDouble(), y.get(e).asDouble(), t.dtype);
  } else {
    for (size_t e = 0; e < n; ++e)
      t.i[e] = detail::intBinary(op, x.get(e).asInt(), y.get(e).asInt(), t.dtype);
  }
}

}  // namespace

// parallelFast's steps over one T.Parallel: its body compiled into `prog`,
// then checked, committed and evaluated a chunk at a time.
struct Machine::TileSteps {
  Machine& m;
  TileProgram& prog;
  int stmtIndex = 0;  // the store statement being compiled

  bool invariant(const Expr& e, Scalar& out);
  bool allowClamp = true;  // affineIndex may take a T.min clamp
  bool affineIndex(const Expr& e, TileDim& d);
  int addAccess(const Buffer& b, const std::vector<Expr>& idx, int stmt, bool write);
  int compile(const Expr& e, int guard = -1);
  int addGuard(int cond, int parent, bool negate);
  void recordGuarded(const TileNode& t, size_t n, const std::vector<int64_t>& offs);
  bool compileStores(const std::vector<const StoreStmt*>& stores);
  bool clampToGuard(const Expr& cond);
  bool markFold(TileProgram::Store& st, const StoreStmt& stmt);
  void foldColumn(const TileProgram::Store& st, size_t n);
  bool readsDefined();
  bool poisonCopies();
  bool copyShadows(int64_t total);
  void commit();
  void evaluate(int64_t total);
  void loadColumn(TileNode& t, size_t n, const std::vector<int64_t>& offs,
                  const std::vector<double>*& half);
  void evalNode(TileNode& t, size_t n, const std::vector<std::vector<int64_t>>& varCol,
                std::vector<int64_t>& offs, const std::vector<double>*& half);
  void storeColumn(const TileProgram::Store& st, size_t n, const std::vector<int64_t>& offs);
  void markWritesDefined();
};

// An invariant value (no parallel variable, no load), evaluated once.
bool Machine::TileSteps::invariant(const Expr& e, Scalar& out) {
  try {
    out = m.eval(e);
  } catch (const ExecError&) {
    return false;
  }
  return !out.poison;
}

// Index `e` as `var + invariant` (or `invariant + var`, `var - invariant`) or
// an invariant, into d.
bool Machine::TileSteps::affineIndex(const Expr& e, TileDim& d) {
  if (!isInt(e->dtype) || (e->dtype != DType::Int32 && e->dtype != DType::Int64)) return false;
  if (!mentionsTileWork(prog, e)) {
    Scalar v;
    if (!invariant(e, v) || v.isFloat) return false;
    d.c = v.i;
    return true;
  }
  if (e->kind == ExprKind::VarRef) {
    d.var = prog.parallelVar(e->var);
    return d.var >= 0;
  }
  if (e->kind == ExprKind::Binary && e->binOp == BinOp::Min && allowClamp) {
    // T.min(var + c, hi) or T.min(hi, var + c), hi invariant.
    const Expr* inner = &e->operands[0];
    const Expr* limit = &e->operands[1];
    if (!mentionsTileWork(prog, *inner)) std::swap(inner, limit);
    Scalar h;
    if (mentionsTileWork(prog, *limit) || !invariant(*limit, h) || h.isFloat) return false;
    allowClamp = false;  // one clamp, outermost
    bool ok = affineIndex(*inner, d) && d.var >= 0;
    allowClamp = true;
    if (!ok || h.i > (int64_t{1} << 31) || h.i < -(int64_t{1} << 31)) return false;
    d.hi = h.i;
    return true;
  }
  if (e->kind != ExprKind::Binary || (e->binOp != BinOp::Add && e->binOp != BinOp::Sub))
    return false;
  const Expr& l = e->operands[0];
  const Expr& r = e->operands[1];
  const Expr* varSide = nullptr;
  const Expr* constSide = nullptr;
  if (l->kind == ExprKind::VarRef && prog.parallelVar(l->var) >= 0 && !mentionsTileWork(prog, r))
    varSide = &l, constSide = &r;
  else if (e->binOp == BinOp::Add && r->kind == ExprKind::VarRef && prog.parallelVar(r->var) >= 0 &&
           !mentionsTileWork(prog, l))
    varSide = &r, constSide = &l;
  if (!varSide) return false;
  Scalar v;
  if (!invariant(*constSide, v) || v.isFloat) return false;
  d.var = prog.parallelVar((*varSide)->var);
  // |c| bounded so that var + c never wraps in int32 once it is in bounds.
  if (v.i > (int64_t{1} << 30) || v.i < -(int64_t{1} << 30)) return false;
  d.c = e->binOp == BinOp::Add ? v.i : -v.i;
  return true;
}

// Adds the access b[idx] of statement `stmt`, proved in bounds for the whole
// tile; its index in prog.accesses, or -1.
int Machine::TileSteps::addAccess(const Buffer& b, const std::vector<Expr>& idx, int stmt,
                                  bool write) {
  const auto& bi = m.buffers_.at(static_cast<size_t>(b->id));
  if (bi.storage < 0 || idx.size() != bi.shape.size() || idx.size() > kMaxTileRank) return -1;
  if (m.memory_.isPaged(bi.storage)) return -1;  // element by element fills its chunks
  // Built in place (a TileAccess is some 600 bytes): dropped again on failure.
  TileAccess& a = prog.accesses.emplace_back();
  int index = static_cast<int>(prog.accesses.size()) - 1;
  auto fail = [&] {
    prog.accesses.pop_back();
    return -1;
  };
  a.buffer = b;
  a.storage = bi.storage;
  a.elemBytes = bi.elemBytes;
  a.stmt = stmt;
  a.write = write;
  a.varStride.assign(prog.varIds.size(), 0);
  int64_t last = 0;
  std::array<bool, kMaxTileRank> used{};
  for (size_t d = 0; d < idx.size(); ++d) {
    TileDim td;
    if (!affineIndex(idx[d], td)) return fail();
    if (td.clamped() && write) return fail();  // not injective
    auto [lo, hi] = dimRange(prog, td);
    int64_t step = bi.strides[d] * bi.elemBytes;
    if (td.var >= 0) {
      if (used[static_cast<size_t>(td.var)]) return fail();  // a variable twice
      used[static_cast<size_t>(td.var)] = true;
      if (bi.strides[d] == 0) return fail();
      if (td.clamped())
        a.clamps.push_back({td.var, td.c, td.hi, step});
      else
        a.varStride[static_cast<size_t>(td.var)] = step;
    }
    if (lo < 0 || hi >= bi.shape[d] || hi >= (int64_t{1} << 31)) return fail();
    if (!td.clamped()) a.base += td.c * step;
    a.safe += lo * step;
    last += hi * bi.strides[d];
    a.dims.push_back(td);
  }
  if ((last + 1) * bi.elemBytes > m.memory_.size(bi.storage)) return fail();
  return index;
}

// Appends the nodes of `e` (operands first); the index of its root, or -1.
int Machine::TileSteps::compile(const Expr& e, int guard) {
  TileNode n;
  n.dtype = e->dtype;
  if (!mentionsTileWork(prog, e)) {
    n.kind = TileKind::Const;
    if (!invariant(e, n.constant)) return -1;
    n.isFloat = n.constant.isFloat;
  } else {
    switch (e->kind) {
      case ExprKind::VarRef:
        n.kind = TileKind::Var;
        n.var = prog.parallelVar(e->var);
        break;
      case ExprKind::Load:
        n.kind = TileKind::Load;
        n.access = addAccess(e->buffer, e->operands, stmtIndex, false);
        if (n.access < 0) return -1;
        n.isFloat = isFloat(e->buffer->dtype);
        n.guard = guard;
        prog.accesses[static_cast<size_t>(n.access)].guarded = guard >= 0;
        break;
      case ExprKind::Cast:
        n.kind = TileKind::Cast;
        if ((n.a = compile(e->operands[0], guard)) < 0) return -1;
        n.isFloat = isFloat(e->dtype);
        break;
      case ExprKind::Select: {
        // The walk evaluates one branch per element: loads in a branch read
        // only where it is taken (guards).
        n.kind = TileKind::Select;
        if ((n.a = compile(e->operands[0], guard)) < 0) return -1;
        bool loads = hasLoad(e->operands[1]) || hasLoad(e->operands[2]);
        int taken = loads ? addGuard(n.a, guard, false) : guard;
        int other = loads ? addGuard(n.a, guard, true) : guard;
        if ((n.b = compile(e->operands[1], taken)) < 0 ||
            (n.c = compile(e->operands[2], other)) < 0)
          return -1;
        n.isFloat = isFloat(e->dtype);
        break;
      }
      case ExprKind::Unary:
        n.kind = TileKind::Unary;
        n.unOp = e->unOp;
        if ((n.a = compile(e->operands[0], guard)) < 0) return -1;
        n.isFloat = e->unOp != UnOp::Not && isFloat(e->dtype);
        break;
      case ExprKind::Binary: {
        n.binOp = e->binOp;
        bool logical = e->binOp == BinOp::And || e->binOp == BinOp::Or;
        n.kind = logical ? TileKind::AndOr : TileKind::Binary;
        if ((n.a = compile(e->operands[0], guard)) < 0) return -1;
        // and / or evaluate their right operand only where the left does not decide.
        int right = logical && hasLoad(e->operands[1]) ? addGuard(n.a, guard, e->binOp == BinOp::Or)
                                                       : guard;
        if ((n.b = compile(e->operands[1], right)) < 0) return -1;
        if (logical || isComparison(e->binOp)) {
          n.isFloat = false;
        } else {
          n.isFloat = isFloat(e->dtype);
          bool division =
              e->binOp == BinOp::Div || e->binOp == BinOp::FloorDiv || e->binOp == BinOp::FloorMod;
          if (!n.isFloat && division) {
            const TileNode& d = prog.nodes[static_cast<size_t>(n.b)];
            if (d.kind != TileKind::Const || d.constant.asInt() == 0) return -1;
          }
          // A shift count the walk could find negative (an error there): element by element.
          if (e->binOp == BinOp::Shl || e->binOp == BinOp::Shr) {
            const TileNode& d = prog.nodes[static_cast<size_t>(n.b)];
            if (d.kind != TileKind::Const || d.constant.asInt() < 0) return -1;
          }
        }
        break;
      }
      default:
        return -1;
    }
  }
  prog.nodes.push_back(std::move(n));
  return static_cast<int>(prog.nodes.size()) - 1;
}

// A Guard node over cond (negated) within parent; its index.
int Machine::TileSteps::addGuard(int cond, int parent, bool negate) {
  TileNode g;
  g.kind = TileKind::Guard;
  g.dtype = DType::Int32;
  g.a = cond;
  g.b = parent;
  g.negate = negate;
  prog.nodes.push_back(std::move(g));
  return static_cast<int>(prog.nodes.size()) - 1;
}

// Compiles every store (value, then its access) into prog.stores.
bool Machine::TileSteps::compileStores(const std::vector<const StoreStmt*>& stores) {
  for (const StoreStmt* st : stores) {
    TileProgram::Store s;
    s.firstNode = static_cast<int>(prog.nodes.size());
    s.loc = st->loc;
    if ((s.value = compile(st->value)) < 0) return false;
    if ((s.access = addAccess(st->buffer, st->indices, stmtIndex, true)) < 0) return false;
    markFold(s, *st);
    prog.stores.push_back(s);
    ++stmtIndex;
  }
  return true;
}

// Whether store `st` is a fold `r[c] = r[c] op x` (c invariant in every
// dimension, the load of r as the left operand); marks it.
bool Machine::TileSteps::markFold(TileProgram::Store& st, const StoreStmt& stmt) {
  if (stmt.atomic != AtomicOp::None) return false;
  const TileNode& root = prog.nodes[static_cast<size_t>(st.value)];
  if (root.kind != TileKind::Binary) return false;
  BinOp op = root.binOp;
  if (op != BinOp::Add && op != BinOp::Sub && op != BinOp::Mul && op != BinOp::Min &&
      op != BinOp::Max)
    return false;
  const TileNode& left = prog.nodes[static_cast<size_t>(root.a)];
  if (left.kind != TileKind::Load) return false;
  const TileAccess& r = prog.accesses[static_cast<size_t>(left.access)];
  const TileAccess& w = prog.accesses[static_cast<size_t>(st.access)];
  if (!sameDims(r, w)) return false;
  for (const auto& d : w.dims)
    if (d.var >= 0) return false;
  st.fold = true;
  return true;
}

// The guard `cond` as upper bounds on the parallel variables: prog.extents
// clamped. False for any other condition.
bool Machine::TileSteps::clampToGuard(const Expr& cond) {
  if (cond->kind != ExprKind::Binary) return false;
  BinOp op = cond->binOp;
  if (op == BinOp::And) return clampToGuard(cond->operands[0]) && clampToGuard(cond->operands[1]);
  const Expr* var = &cond->operands[0];
  const Expr* bound = &cond->operands[1];
  if (op == BinOp::GT || op == BinOp::GE) {  // c > var is var < c
    std::swap(var, bound);
    op = op == BinOp::GT ? BinOp::LT : BinOp::LE;
  }
  if (op != BinOp::LT && op != BinOp::LE) return false;
  if ((*var)->kind != ExprKind::VarRef || !isInt((*var)->dtype)) return false;
  int v = prog.parallelVar((*var)->var);
  if (v < 0 || mentionsTileWork(prog, *bound) || !isInt((*bound)->dtype)) return false;
  Scalar c;
  if (!invariant(*bound, c) || c.isFloat) return false;
  int64_t& extent = prog.extents[static_cast<size_t>(v)];
  int64_t limit = std::clamp<int64_t>(c.i, -1, extent);  // var < limit
  if (op == BinOp::LE) ++limit;
  extent = std::clamp<int64_t>(limit, 0, extent);
  return true;
}

// When tracking poison: no poison invariant, and every load reads defined
// bytes (or bytes an earlier statement of the body writes).
bool Machine::TileSteps::readsDefined() {
  for (const auto& n : prog.nodes)
    if (n.kind == TileKind::Const && n.constant.poison) return false;
  for (const auto& a : prog.accesses) {
    if (a.write) continue;
    bool writtenBefore = false;  // by an earlier statement: defined by then
    for (const auto& w : prog.accesses)
      writtenBefore = writtenBefore || (w.write && w.storage == a.storage && w.stmt < a.stmt);
    if (!writtenBefore && !m.regionDefined(box(prog, a))) return false;
  }
  return true;
}

// Poison allowed: every store copies one load (no other node) from a storage
// the body does not write into on-chip memory, so an element's poison is its
// source's definedness alone (copyShadows), as the walk derives it.
bool Machine::TileSteps::poisonCopies() {
  for (const auto& n : prog.nodes)
    if (n.kind == TileKind::Const && n.constant.poison) return false;
  for (const auto& st : prog.stores) {
    const TileNode& v = prog.nodes[static_cast<size_t>(st.value)];
    if (st.fold || v.kind != TileKind::Load || v.guard >= 0 || st.firstNode != st.value)
      return false;
    const TileAccess& src = prog.accesses[static_cast<size_t>(v.access)];
    const TileAccess& dst = prog.accesses[static_cast<size_t>(st.access)];
    if (m.memory_.alwaysDefined(dst.storage) ||
        m.memory_.storage(dst.storage)->scope == MemScope::Global)
      return false;
    for (const auto& w : prog.accesses)
      if (w.write && w.storage == src.storage) return false;
  }
  return true;
}

// The shadow bytes of poisonCopies' stores, element by element, and the walk's
// poison bookkeeping: notePoisonLoad for the first poison load of each source
// storage in walk order (element, then statement), then for the last one.
// Whether any element was poison.
bool Machine::TileSteps::copyShadows(int64_t total) {
  struct Seen {
    int64_t element = -1;
    size_t store = 0;
    int64_t offset = 0;
  };
  std::vector<std::pair<int, Seen>> first;  // per source storage
  Seen last;
  int lastStorage = -1;
  auto before = [](const Seen& a, int64_t e, size_t k) {
    return a.element < e || (a.element == e && a.store < k);
  };
  const size_t chunk = static_cast<size_t>(std::min<int64_t>(total, 2048));
  size_t rank = prog.extents.size();
  std::vector<std::vector<int64_t>> varCol(rank, std::vector<int64_t>(chunk));
  std::vector<int64_t> idx(rank, 0), srcOffs(chunk), dstOffs(chunk);
  for (int64_t done = 0; done < total;) {
    size_t n = static_cast<size_t>(std::min<int64_t>(total - done, static_cast<int64_t>(chunk)));
    fillVarColumns(prog.extents, n, idx, varCol);
    for (size_t k = 0; k < prog.stores.size(); ++k) {
      const auto& st = prog.stores[k];
      const TileAccess& src =
          prog.accesses[static_cast<size_t>(prog.nodes[static_cast<size_t>(st.value)].access)];
      const TileAccess& dst = prog.accesses[static_cast<size_t>(st.access)];
      tileOffsets(src, n, varCol, srcOffs);
      tileOffsets(dst, n, varCol, dstOffs);
      for (size_t e = 0; e < n; ++e) {
        const uint8_t* d = m.memory_.definedAt(src.storage, srcOffs[e], src.elemBytes);
        bool defined = std::all_of(d, d + src.elemBytes, [](uint8_t b) { return b != 0; });
        m.memory_.setDefined(dst.storage, dstOffs[e], dst.elemBytes, defined ? 1 : 0);
        if (defined) continue;
        int64_t element = done + static_cast<int64_t>(e);
        Seen here{element, k, srcOffs[e]};
        auto it = std::find_if(first.begin(), first.end(),
                               [&](const auto& f) { return f.first == src.storage; });
        if (it == first.end())
          first.push_back({src.storage, here});
        else if (!before(it->second, element, k))
          it->second = here;
        if (lastStorage < 0 || before(last, element, k)) last = here, lastStorage = src.storage;
      }
    }
    done += static_cast<int64_t>(n);
  }
  if (lastStorage < 0) return false;
  std::sort(first.begin(), first.end(), [&](const auto& a, const auto& b) {
    return before(a.second, b.second.element, b.second.store);
  });
  auto note = [&](int storage, const Seen& at) {
    m.loc = prog.stores[at.store].loc;
    const TileAccess& src = prog.accesses[static_cast<size_t>(
        prog.nodes[static_cast<size_t>(prog.stores[at.store].value)].access)];
    m.notePoisonLoad(storage, at.offset, at.offset + src.elemBytes);
  };
  for (const auto& [storage, at] : first) note(storage, at);
  note(lastStorage, last);
  return true;
}

// Records the accesses (and the old bytes of the writes while deferring).
void Machine::TileSteps::commit() {
  for (const auto& a : prog.accesses) {
    if (a.guarded) continue;  // recorded as evaluated (recordGuarded)
    const ResolvedRegion& r = box(prog, a);
    m.forEachRow(r, [&](int64_t off, int64_t len) {
      int64_t bytes = len * a.elemBytes;
      if (m.access) m.access->add(a.storage, off, off + bytes, a.write);
      if (a.write && m.deferring_) m.logOld(a.storage, off, bytes);
    });
    if (a.write) m.written[static_cast<size_t>(a.storage)] = 1;
  }
}

// Every store's nodes, then the store, over chunks of up to 2048 elements.
void Machine::TileSteps::evaluate(int64_t total) {
  const size_t chunk = static_cast<size_t>(std::min<int64_t>(total, 2048));
  // Columns from the Machine's scratch (grown, never shrunk): no allocation
  // per statement once warm, which matters for the many 64-lane statements
  // of SIMD and SIMT regions.
  size_t cells = prog.nodes.size() * chunk;
  if (m.tileFloats_.size() < cells) m.tileFloats_.resize(cells);
  if (m.tileInts_.size() < cells) m.tileInts_.resize(cells);
  for (size_t k = 0; k < prog.nodes.size(); ++k) {
    TileNode& n = prog.nodes[k];
    n.f = m.tileFloats_.data() + k * chunk;
    n.i = m.tileInts_.data() + k * chunk;
    if (n.kind != TileKind::Const) continue;
    if (n.isFloat)
      std::fill(n.f, n.f + chunk, n.constant.f);
    else
      std::fill(n.i, n.i + chunk, n.constant.i);
  }
  size_t rank = prog.extents.size();
  std::vector<std::vector<int64_t>>& varCol = m.tileVarColumns_;
  if (varCol.size() < rank) varCol.resize(rank);
  for (size_t d = 0; d < rank; ++d)
    if (varCol[d].size() < chunk) varCol[d].resize(chunk);
  thread_local std::vector<int64_t> idx;
  idx.assign(rank, 0);
  std::vector<int64_t>& offs = m.tileOffsets_;
  if (offs.size() < chunk) offs.resize(chunk);
  const std::vector<double>* half = nullptr;
  for (int64_t done = 0; done < total;) {
    size_t n = static_cast<size_t>(std::min<int64_t>(total - done, static_cast<int64_t>(chunk)));
    fillVarColumns(prog.extents, n, idx, varCol);
    for (const auto& st : prog.stores) {
      int last = st.fold ? st.value - 1 : st.value;  // a fold's root is folded below
      for (int ni = st.firstNode; ni <= last; ++ni)
        evalNode(prog.nodes[static_cast<size_t>(ni)], n, varCol, offs, half);
      if (st.fold) {
        foldColumn(st, n);
        continue;
      }
      tileOffsets(prog.accesses[static_cast<size_t>(st.access)], n, varCol, offs);
      storeColumn(st, n, offs);
    }
    done += static_cast<int64_t>(n);
  }
}

// Load node t's column from the bytes at offs.
void Machine::TileSteps::loadColumn(TileNode& t, size_t n, const std::vector<int64_t>& offs,
                                    const std::vector<double>*& half) {
  const TileAccess& a = prog.accesses[static_cast<size_t>(t.access)];
  const uint8_t* mem = m.memory_.data(a.storage);
  DType dt = a.buffer->dtype;
  if (dt == DType::Float32) {
    for (size_t e = 0; e < n; ++e) {
      float v;
      std::memcpy(&v, mem + offs[e], 4);
      t.f[e] = v;
    }
  } else if (dt == DType::Float16) {
    if (!half) half = &detail::halfTable();
    for (size_t e = 0; e < n; ++e) {
      uint16_t v;
      std::memcpy(&v, mem + offs[e], 2);
      t.f[e] = (*half)[v];
    }
  } else if (dt == DType::Int32) {
    for (size_t e = 0; e < n; ++e) {
      int32_t v;
      std::memcpy(&v, mem + offs[e], 4);
      t.i[e] = v;
    }
  } else if (dt == DType::UInt8) {
    for (size_t e = 0; e < n; ++e) t.i[e] = mem[offs[e]];
  } else {
    for (size_t e = 0; e < n; ++e) t.set(e, loadElement(mem + offs[e], dt));
  }
}

// Node t's column over the chunk's first n elements (its operands' are done).
void Machine::TileSteps::evalNode(TileNode& t, size_t n,
                                  const std::vector<std::vector<int64_t>>& varCol,
                                  std::vector<int64_t>& offs, const std::vector<double>*& half) {
  switch (t.kind) {
    case TileKind::Const:
      break;
    case TileKind::Var:
      std::copy(varCol[static_cast<size_t>(t.var)].begin(),
                varCol[static_cast<size_t>(t.var)].begin() + static_cast<long>(n), t.i);
      break;
    case TileKind::Load:
      tileOffsets(prog.accesses[static_cast<size_t>(t.access)], n, varCol, offs);
      if (t.guard >= 0) {  // the elements not evaluated read an element in bounds
        const TileNode& g = prog.nodes[static_cast<size_t>(t.guard)];
        int64_t safe = prog.accesses[static_cast<size_t>(t.access)].safe;
        for (size_t e = 0; e < n; ++e)
          if (!g.i[e]) offs[e] = safe;
        recordGuarded(t, n, offs);
      }
      loadColumn(t, n, offs, half);
      break;
    case TileKind::Guard: {
      const TileNode& c = prog.nodes[static_cast<size_t>(t.a)];
      const TileNode* parent = t.b >= 0 ? &prog.nodes[static_cast<size_t>(t.b)] : nullptr;
      for (size_t e = 0; e < n; ++e)
        t.i[e] = c.get(e).truthy() != t.negate && (!parent || parent->i[e]);
      break;
    }
    case TileKind::Cast: {
      const TileNode& x = prog.nodes[static_cast<size_t>(t.a)];
      if (isInt(t.dtype) && t.dtype != DType::Bool && !x.isFloat) {  // convert: wrapToInt
        for (size_t e = 0; e < n; ++e) t.i[e] = wrapToInt(x.i[e], t.dtype);
      } else if (t.dtype == DType::Float32 && x.isFloat) {  // convert: round to binary32
        for (size_t e = 0; e < n; ++e) t.f[e] = static_cast<float>(x.f[e]);
      } else if (isFloat(t.dtype) && x.isFloat) {  // convert: roundToFloat
        roundColumnToFloat(x.f, t.f, n, t.dtype);
      } else {
        for (size_t e = 0; e < n; ++e) t.set(e, convert(x.get(e), t.dtype));
      }
      break;
    }
    case TileKind::Select: {
      const TileNode& c = prog.nodes[static_cast<size_t>(t.a)];
      const TileNode& x = prog.nodes[static_cast<size_t>(t.b)];
      const TileNode& y = prog.nodes[static_cast<size_t>(t.c)];
      if (t.dtype == DType::Int32 && !c.isFloat && !x.isFloat && !y.isFloat) {
        for (size_t e = 0; e < n; ++e)
          t.i[e] = static_cast<int32_t>(static_cast<uint64_t>(c.i[e] ? x.i[e] : y.i[e]));
      } else if (isInt(t.dtype) && t.dtype != DType::Bool && !c.isFloat && !x.isFloat &&
                 !y.isFloat) {  // convert of an integer: wrapToInt
        for (size_t e = 0; e < n; ++e) t.i[e] = wrapToInt(c.i[e] ? x.i[e] : y.i[e], t.dtype);
      } else if (t.dtype == DType::Float32 && !c.isFloat && x.isFloat && y.isFloat) {
        for (size_t e = 0; e < n; ++e) t.f[e] = static_cast<float>(c.i[e] ? x.f[e] : y.f[e]);
      } else {
        for (size_t e = 0; e < n; ++e)
          t.set(e, convert(c.get(e).truthy() ? x.get(e) : y.get(e), t.dtype));
      }
      break;
    }
    case TileKind::Unary: {
      const TileNode& x = prog.nodes[static_cast<size_t>(t.a)];
      for (size_t e = 0; e < n; ++e) t.set(e, detail::unaryValue(t.unOp, t.dtype, x.get(e)));
      break;
    }
    case TileKind::AndOr: {
      const TileNode& x = prog.nodes[static_cast<size_t>(t.a)];
      const TileNode& y = prog.nodes[static_cast<size_t>(t.b)];
      bool isAnd = t.binOp == BinOp::And;
      for (size_t e = 0; e < n; ++e) {
        bool l = x.get(e).truthy();
        t.i[e] = isAnd ? (l && y.get(e).truthy()) : (l || y.get(e).truthy());
      }
      break;
    }
    case TileKind::Binary:
      binaryColumn(t, prog.nodes[static_cast<size_t>(t.a)], prog.nodes[static_cast<size_t>(t.b)],
                   n);
      break;
  }
}

// The read accesses of a guarded load: the elements its guard selects, as
// runs of consecutive bytes.
void Machine::TileSteps::recordGuarded(const TileNode& t, size_t n,
                                       const std::vector<int64_t>& offs) {
  if (!m.access) return;
  const TileAccess& a = prog.accesses[static_cast<size_t>(t.access)];
  const TileNode& g = prog.nodes[static_cast<size_t>(t.guard)];
  int64_t lo = 0, hi = -1;
  for (size_t e = 0; e < n; ++e) {
    if (!g.i[e]) continue;
    if (offs[e] == hi) {
      hi += a.elemBytes;
      continue;
    }
    if (hi > lo) m.access->add(a.storage, lo, hi, false);
    lo = offs[e];
    hi = lo + a.elemBytes;
  }
  if (hi > lo) m.access->add(a.storage, lo, hi, false);
}

// The store: converted to the buffer's dtype as storeElement does.
void Machine::TileSteps::storeColumn(const TileProgram::Store& st, size_t n,
                                     const std::vector<int64_t>& offs) {
  const TileAccess& a = prog.accesses[static_cast<size_t>(st.access)];
  const TileNode& v = prog.nodes[static_cast<size_t>(st.value)];
  uint8_t* mem = m.memory_.data(a.storage);
  DType dt = a.buffer->dtype;
  if (dt == DType::Float32 && v.isFloat) {
    for (size_t e = 0; e < n; ++e) {
      float f = static_cast<float>(v.f[e]);
      std::memcpy(mem + offs[e], &f, 4);
    }
  } else if ((dt == DType::Int32 || dt == DType::UInt32) && !v.isFloat) {  // wraps
    for (size_t e = 0; e < n; ++e) {
      auto b = static_cast<uint32_t>(v.i[e]);
      std::memcpy(mem + offs[e], &b, 4);
    }
  } else if ((dt == DType::UInt8 || dt == DType::Int8) && !v.isFloat) {
    for (size_t e = 0; e < n; ++e) mem[offs[e]] = static_cast<uint8_t>(v.i[e]);
  } else if (v.isFloat && isFloat8(dt)) {  // storeElement's rounding and encoding, inline
    // A cast to dt left the values on dt's grid, where rounding is the identity.
    bool onGrid = v.kind == TileKind::Cast && v.dtype == dt;
    for (size_t e = 0; e < n; ++e)
      mem[offs[e]] = encodeFloat8(onGrid ? v.f[e] : roundToFloat(v.f[e], dt), dt);
  } else if (v.isFloat && (dt == DType::Float16 || dt == DType::BFloat16)) {
    for (size_t e = 0; e < n; ++e) {
      double r = roundToFloat(v.f[e], dt);
      uint16_t b = dt == DType::Float16 ? encodeHalf(r) : encodeBFloat16(r);
      std::memcpy(mem + offs[e], &b, 2);
    }
  } else {
    for (size_t e = 0; e < n; ++e) storeElement(mem + offs[e], dt, v.get(e));
  }
}

// The fold r = r op x over the chunk's n values of x, in index order, each
// step a load, the walk's binary op and a store of r's element.
void Machine::TileSteps::foldColumn(const TileProgram::Store& st, size_t n) {
  const TileAccess& a = prog.accesses[static_cast<size_t>(st.access)];
  const TileNode& root = prog.nodes[static_cast<size_t>(st.value)];
  const TileNode& x = prog.nodes[static_cast<size_t>(root.b)];
  uint8_t* at = m.memory_.data(a.storage) + a.base;
  DType dt = a.buffer->dtype;
  BinOp op = root.binOp;
  if (dt == DType::Float32 && root.dtype == DType::Float32 && x.isFloat &&
      (op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul)) {
    // binary32 throughout: a float32 store and load give back the same float,
    // so the running value can stay in a register (floatBinary's operations).
    float r;
    std::memcpy(&r, at, 4);
    const double* xs = x.f;
    for (size_t e = 0; e < n; ++e) {
      float v = static_cast<float>(xs[e]);
      r = op == BinOp::Add ? r + v : op == BinOp::Sub ? r - v : r * v;
    }
    std::memcpy(at, &r, 4);
    return;
  }
  for (size_t e = 0; e < n; ++e) {
    Scalar r = loadElement(at, dt);
    Scalar v = x.get(e);
    Scalar out =
        root.isFloat
            ? Scalar::ofFloat(
                  detail::floatBinary(root.binOp, r.asDouble(), v.asDouble(), root.dtype))
            : Scalar::ofInt(detail::intBinary(root.binOp, r.asInt(), v.asInt(), root.dtype));
    storeElement(at, dt, out);
  }
}

// Every value stored was defined.
void Machine::TileSteps::markWritesDefined() {
  for (const auto& a : prog.accesses)
    if (a.write)
      m.forEachRow(box(prog, a), [&](int64_t off, int64_t len) {
        m.memory_.setDefined(a.storage, off, len * a.elemBytes);
      });
}

bool Machine::parallelFast(const ParallelStmt& ps) {
  // One program per thread, cleared and reused (its vectors keep their
  // capacity): parallelFast does not nest (compiling evaluates expressions only).
  thread_local TileProgram prog;
  prog.clear();
  if (ps.vars.size() > kMaxTileRank) return false;
  for (const auto& v : ps.vars) prog.varIds.push_back(v->id);
  prog.extents = ps.extents;
  if (prog.extents.size() != prog.varIds.size() || prog.varIds.empty()) return false;
  int64_t total = 1;
  for (int64_t e : prog.extents) total *= e;
  if (total <= 0) return false;

  thread_local std::vector<const StoreStmt*> stores;
  stores.clear();
  const IfStmt* guard = nullptr;
  if (!collectStores(ps.body, stores, &guard) || stores.empty()) return false;
  prog.walkExtents = prog.extents;

  bool savedPoisonSeen = poisonSeen_;
  TileSteps steps{*this, prog};
  auto decline = [&] {
    poisonSeen_ = savedPoisonSeen;
    return false;
  };
  if (guard && !steps.clampToGuard(guard->cond)) return decline();
  total = 1;
  for (int64_t e : prog.extents) total *= e;
  size_t rank = prog.extents.size();
  if (total == 0) {  // the guard holds nowhere: the walk only tested it
    for (size_t d = 0; d < rank; ++d)
      env[static_cast<size_t>(prog.varIds[d])] = Scalar::ofInt(prog.walkExtents[d] - 1);
    loc = guard->loc;
    poisonSeen_ = savedPoisonSeen;
    ++parallelTiles;
    return true;
  }
  if (!steps.compileStores(stores) || !writesSeparate(prog)) return decline();
  // Undefined inputs: only plain copies carry their poison (copyShadows).
  bool poisonCopy = trackPoison && !steps.readsDefined();
  if (poisonCopy && !steps.poisonCopies()) return decline();

  // Committed: from here on nothing fails.
  steps.commit();
  steps.evaluate(total);
  bool poisoned = false;
  if (poisonCopy)
    poisoned = steps.copyShadows(total);
  else
    steps.markWritesDefined();
  for (size_t d = 0; d < rank; ++d)
    env[static_cast<size_t>(prog.varIds[d])] = Scalar::ofInt(prog.walkExtents[d] - 1);
  // The walk's last element sets loc: the guard's when it fails there.
  loc = prog.extents == prog.walkExtents ? prog.stores.back().loc : guard->loc;
  poisonSeen_ = savedPoisonSeen || poisoned;  // sticky, as eval leaves it
  ++parallelTiles;
  return true;
}

}  // namespace tilesched::sim
