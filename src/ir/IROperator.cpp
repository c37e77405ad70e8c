#include "ir/IROperator.h"

#include <algorithm>
#include <cmath>

namespace tilesched::ir {

namespace {
std::shared_ptr<ExprNode> node(ExprKind kind, DType t) {
  auto n = std::make_shared<ExprNode>();
  n->kind = kind;
  n->dtype = t;
  return n;
}

DType promote(DType a, DType b) {
  if (a == b) return a;
  if (isFloat(a) && !isFloat(b)) return a;
  if (isFloat(b) && !isFloat(a)) return b;
  if (isFloat(a) && isFloat(b)) return dtypeBits(a) >= dtypeBits(b) ? a : b;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  return dtypeBits(a) >= dtypeBits(b) ? a : b;
}

// Wraps to the width of an int dtype so folded constants match run-time values.
int64_t wrapInt(int64_t v, DType t) {
  switch (t) {
    case DType::Int8:
      return static_cast<int8_t>(v);
    case DType::Int16:
      return static_cast<int16_t>(v);
    case DType::Int32:
      return static_cast<int32_t>(v);
    case DType::UInt8:
      return static_cast<uint8_t>(v);
    case DType::UInt16:
      return static_cast<uint16_t>(v);
    case DType::UInt32:
      return static_cast<uint32_t>(v);
    case DType::Bool:
      return v != 0;
    default:
      return v;
  }
}

// Overflow-safe int64 arithmetic: nullopt means "do not fold".
std::optional<int64_t> foldInt(BinOp op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
    case BinOp::Add:
      if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinOp::Sub:
      if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinOp::Mul:
      if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinOp::FloorDiv:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      return floorDiv(a, b);
    case BinOp::FloorMod:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      return floorMod(a, b);
    case BinOp::Min:
      return std::min(a, b);
    case BinOp::Max:
      return std::max(a, b);
    case BinOp::EQ:
      return a == b;
    case BinOp::NE:
      return a != b;
    case BinOp::LT:
      return a < b;
    case BinOp::LE:
      return a <= b;
    case BinOp::GT:
      return a > b;
    case BinOp::GE:
      return a >= b;
    case BinOp::And:
      return (a != 0) && (b != 0);
    case BinOp::Or:
      return (a != 0) || (b != 0);
    case BinOp::BitAnd:
      return a & b;
    case BinOp::BitOr:
      return a | b;
    case BinOp::BitXor:
      return a ^ b;
    case BinOp::Shl:
      if (b < 0 || b >= 63 || (a != 0 && (a > (INT64_MAX >> b) || a < (INT64_MIN >> b))))
        return std::nullopt;
      return static_cast<int64_t>(static_cast<uint64_t>(a) << b);
    case BinOp::Shr:
      if (b < 0) return std::nullopt;
      return b >= 64 ? (a < 0 ? -1 : 0) : a >> b;
    case BinOp::Div:
      return std::nullopt;
  }
  return std::nullopt;
}
}  // namespace

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

Expr intImm(int64_t v, DType t) {
  auto n = node(ExprKind::IntImm, t);
  n->intValue = wrapInt(v, t);
  return n;
}

Expr floatImm(double v, DType t) {
  auto n = node(ExprKind::FloatImm, t);
  n->floatValue = v;
  return n;
}

Expr boolImm(bool v) { return intImm(v ? 1 : 0, DType::Bool); }

Expr varRef(const Var& v) {
  auto n = node(ExprKind::VarRef, v->dtype);
  n->var = v;
  return n;
}

Expr load(const Buffer& b, std::vector<Expr> indices) {
  auto n = node(ExprKind::Load, b->dtype);
  n->buffer = b;
  n->operands = std::move(indices);
  return n;
}

Expr cast(DType t, Expr e) {
  if (e->dtype == t) return e;
  if (auto c = asConstInt(e); c && !isFloat(t)) return intImm(*c, t);
  if (auto c = asConstInt(e); c && isFloat(t)) return floatImm(static_cast<double>(*c), t);
  auto n = node(ExprKind::Cast, t);
  n->operands = {std::move(e)};
  return n;
}

Expr select(Expr cond, Expr a, Expr b) {
  if (auto c = asConstInt(cond)) return *c ? a : b;
  auto n = node(ExprKind::Select, promote(a->dtype, b->dtype));
  n->operands = {std::move(cond), std::move(a), std::move(b)};
  return n;
}

bool isComparison(BinOp op) {
  return op == BinOp::EQ || op == BinOp::NE || op == BinOp::LT || op == BinOp::LE ||
         op == BinOp::GT || op == BinOp::GE;
}

Expr binary(BinOp op, Expr a, Expr b) {
  bool logical = op == BinOp::And || op == BinOp::Or;
  DType t = (isComparison(op) || logical) ? DType::Bool : promote(a->dtype, b->dtype);
  auto ca = asConstInt(a), cb = asConstInt(b);
  if (ca && cb && !isFloat(a->dtype) && !isFloat(b->dtype)) {
    if (auto r = foldInt(op, *ca, *cb)) return intImm(*r, t);
  }
  // Identities that keep printed regions readable; only on ints, where they are exact.
  if (!isFloat(t) && !logical && !isComparison(op)) {
    if (op == BinOp::Add && ca == 0) return b;
    if ((op == BinOp::Add || op == BinOp::Sub) && cb == 0) return a;
    if (op == BinOp::Mul && (ca == 0 || cb == 0)) return intImm(0, t);
    if (op == BinOp::Mul && ca == 1) return b;
    if ((op == BinOp::Mul || op == BinOp::FloorDiv) && cb == 1) return a;
    if (op == BinOp::FloorMod && cb == 1) return intImm(0, t);
  }
  auto n = node(ExprKind::Binary, t);
  n->binOp = op;
  n->operands = {std::move(a), std::move(b)};
  return n;
}

Expr atomicUpdateValue(AtomicOp op, Expr dst, Expr v) {
  auto n = node(ExprKind::Binary, promote(dst->dtype, v->dtype));
  n->binOp = atomicBinOp(op);
  n->operands = {std::move(dst), std::move(v)};
  return n;
}

Expr unary(UnOp op, Expr a) {
  if (op == UnOp::Neg) {
    if (auto c = asConstInt(a); c && *c != INT64_MIN) return intImm(-*c, a->dtype);
    if (auto f = asConstFloat(a)) return floatImm(-*f, a->dtype);
  }
  if (op == UnOp::Not) {
    if (auto c = asConstInt(a)) return boolImm(*c == 0);
  }
  auto n = node(ExprKind::Unary, op == UnOp::Not ? DType::Bool : a->dtype);
  n->unOp = op;
  n->operands = {std::move(a)};
  return n;
}

std::optional<int64_t> asConstInt(const Expr& e) {
  if (e && e->kind == ExprKind::IntImm) return e->intValue;
  return std::nullopt;
}

std::optional<double> asConstFloat(const Expr& e) {
  if (e && e->kind == ExprKind::FloatImm) return e->floatValue;
  return std::nullopt;
}

bool isConstInt(const Expr& e, int64_t v) {
  auto c = asConstInt(e);
  return c && *c == v;
}

bool mentionsVar(const Expr& e, const Var& var) {
  if (!e) return false;
  if (e->kind == ExprKind::VarRef && e->var == var) return true;
  for (const auto& o : e->operands)
    if (mentionsVar(o, var)) return true;
  return false;
}

bool containsLoad(const Expr& e) {
  if (!e) return false;
  if (e->kind == ExprKind::Load) return true;
  for (const auto& o : e->operands)
    if (containsLoad(o)) return true;
  return false;
}

bool exprEqual(const Expr& a, const Expr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || a->dtype != b->dtype || a->binOp != b->binOp || a->unOp != b->unOp ||
      a->intValue != b->intValue || a->var != b->var || a->buffer != b->buffer ||
      a->operands.size() != b->operands.size())
    return false;
  if (a->kind == ExprKind::FloatImm &&
      !(a->floatValue == b->floatValue || (std::isnan(a->floatValue) && std::isnan(b->floatValue))))
    return false;
  for (size_t i = 0; i < a->operands.size(); ++i)
    if (!exprEqual(a->operands[i], b->operands[i])) return false;
  return true;
}

std::optional<std::vector<int64_t>> constShape(const Buffer& b) {
  std::vector<int64_t> out;
  for (const auto& d : b->shape) {
    auto c = asConstInt(d);
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (auto x : v) p *= x;
  return p;
}

bool stridesMayOverlap(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  std::vector<std::pair<int64_t, int64_t>> steps;  // (stride, extent) of dimensions that step
  for (size_t d = 0; d < shape.size() && d < strides.size(); ++d)
    if (shape[d] > 1) steps.push_back({strides[d], shape[d]});
  std::sort(steps.begin(), steps.end());
  int64_t span = 1;  // one past the largest offset of the dimensions so far
  for (auto [stride, extent] : steps) {
    if (stride < span) return true;
    int64_t reach = 0;
    if (__builtin_mul_overflow(stride, extent - 1, &reach) ||
        __builtin_add_overflow(span, reach, &span))
      return true;  // beyond 2^63: not a layout the simulator can hold anyway
  }
  return false;
}

std::string_view binOpSpelling(BinOp op) {
  switch (op) {
    case BinOp::Add:
      return "+";
    case BinOp::Sub:
      return "-";
    case BinOp::Mul:
      return "*";
    case BinOp::Div:
      return "/";
    case BinOp::FloorDiv:
      return "//";
    case BinOp::FloorMod:
      return "%";
    case BinOp::Min:
      return "T.min";
    case BinOp::Max:
      return "T.max";
    case BinOp::EQ:
      return "==";
    case BinOp::NE:
      return "!=";
    case BinOp::LT:
      return "<";
    case BinOp::LE:
      return "<=";
    case BinOp::GT:
      return ">";
    case BinOp::GE:
      return ">=";
    case BinOp::And:
      return "and";
    case BinOp::Or:
      return "or";
    case BinOp::BitAnd:
      return "&";
    case BinOp::BitOr:
      return "|";
    case BinOp::BitXor:
      return "^";
    case BinOp::Shl:
      return "<<";
    case BinOp::Shr:
      return ">>";
  }
  return "?";
}

std::string_view unOpName(UnOp op) {
  switch (op) {
    case UnOp::Neg:
      return "-";
    case UnOp::Not:
      return "not ";
    case UnOp::Abs:
      return "T.abs";
    case UnOp::Exp:
      return "T.exp";
    case UnOp::Log:
      return "T.log";
    case UnOp::Sqrt:
      return "T.sqrt";
    case UnOp::Rsqrt:
      return "T.rsqrt";
    case UnOp::Tanh:
      return "T.tanh";
    case UnOp::Sigmoid:
      return "T.sigmoid";
  }
  return "?";
}

BinOp atomicBinOp(AtomicOp op) {
  return op == AtomicOp::Max ? BinOp::Max : op == AtomicOp::Min ? BinOp::Min : BinOp::Add;
}

const char* atomicOpName(AtomicOp op) {
  switch (op) {
    case AtomicOp::None:
      return "none";
    case AtomicOp::Add:
      return "add";
    case AtomicOp::Max:
      return "max";
    case AtomicOp::Min:
      return "min";
  }
  return "?";
}

std::string_view reduceKindName(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum:
      return "sum";
    case ReduceKind::Max:
      return "max";
    case ReduceKind::Min:
      return "min";
    case ReduceKind::AbsSum:
      return "abssum";
    case ReduceKind::AbsMax:
      return "absmax";
  }
  return "?";
}

std::string_view versionModeName(VersionMode m) {
  switch (m) {
    case VersionMode::Auto:
      return "auto";
    case VersionMode::Iteration:
      return "iteration";
    case VersionMode::Counter:
      return "counter";
  }
  return "?";
}

std::optional<VersionMode> KernelAnnotations::writtenBackMode(const Storage& storage,
                                                              int64_t count) const {
  for (const auto& spec : bufferVersions)
    if (spec.storage == storage && spec.mode) return spec.mode;
  if (count == 1) return VersionMode::Auto;
  return std::nullopt;
}

int64_t Region::numElements() const {
  int64_t n = 1;
  for (const auto& r : ranges) n *= r.extent;
  return n;
}

bool GemmStmt::hasL1Operands() const {
  return a.buffer->storage->scope == MemScope::L1 || b.buffer->storage->scope == MemScope::L1;
}

const Buffer* Kernel::findBuffer(const std::string& n) const {
  for (const auto& b : buffers)
    if (b->name == n) return &b;
  return nullptr;
}

std::string Kernel::primFuncName() const {
  std::string suffix = "_" + std::to_string(launch);
  bool renamed = launch > 0 && name.size() > suffix.size() &&
                 name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return renamed ? name.substr(0, name.size() - suffix.size()) : name;
}

std::string Kernel::displayName() const {
  std::string base = factory.empty() ? primFuncName() : factory;
  if (numLaunches <= 1) return base;
  return base + " launch " + std::to_string(launch) + "/" + std::to_string(numLaunches);
}

}  // namespace tilesched::ir

namespace tilesched::ir {
namespace {
// A linear form c + Σ coeff·atom, where an atom is any non-linear subterm
// (a var, a load, a floordiv, ...) compared structurally.
struct Linear {
  int64_t constant = 0;
  std::vector<std::pair<Expr, int64_t>> terms;
  bool addTerm(const Expr& atom, int64_t coeff) {
    for (auto& [a, c] : terms)
      if (exprEqual(a, atom)) return !__builtin_add_overflow(c, coeff, &c);
    terms.push_back({atom, coeff});
    return true;
  }
};

// Every coefficient and the constant are overflow-checked: an overflow makes
// the form unknown (false), never undefined behaviour.
bool linearize(const Expr& e, int64_t scale, Linear& out, int depth = 0) {
  if (depth > 64) return false;
  int64_t product = 0;
  if (auto c = asConstInt(e))
    return !__builtin_mul_overflow(scale, *c, &product) &&
           !__builtin_add_overflow(out.constant, product, &out.constant);
  if (e->kind == ExprKind::Binary && !isFloat(e->dtype)) {
    const Expr& a = e->operands[0];
    const Expr& b = e->operands[1];
    switch (e->binOp) {
      case BinOp::Add:
        return linearize(a, scale, out, depth + 1) && linearize(b, scale, out, depth + 1);
      case BinOp::Sub:
        return scale != INT64_MIN && linearize(a, scale, out, depth + 1) &&
               linearize(b, -scale, out, depth + 1);
      case BinOp::Mul:
        if (auto c = asConstInt(b))
          return !__builtin_mul_overflow(scale, *c, &product) &&
                 linearize(a, product, out, depth + 1);
        if (auto c = asConstInt(a))
          return !__builtin_mul_overflow(scale, *c, &product) &&
                 linearize(b, product, out, depth + 1);
        break;
      default:
        break;
    }
  }
  return out.addTerm(e, scale);
}
}  // namespace

std::optional<int64_t> constDifference(const Expr& a, const Expr& b) {
  Linear form;
  if (!linearize(a, 1, form) || !linearize(b, -1, form)) return std::nullopt;
  for (const auto& [atom, coeff] : form.terms)
    if (coeff != 0) return std::nullopt;
  return form.constant;
}
}  // namespace tilesched::ir
