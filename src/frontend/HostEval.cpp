// Elaboration, the host-Python evaluator: expressions, calls (builtins,
// compile-time helper functions, the dialect's value-level calls), constant
// folding and the conversions from values to IR expressions, shapes and
// dtypes. Expects the environment the module level built (Elaborator.cpp);
// guarantees Python's wording for its errors (SPEC §1.1).
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "frontend/ConstantBounds.h"
#include "frontend/ElaboratorImpl.h"
#include "frontend/ManualRings.h"
#include "frontend/NeverWritten.h"
#include "frontend/Parser.h"
#include "ir/Verifier.h"

namespace tilesched::frontend {

using K = Value::Kind;
using namespace ir;

// ------------------------------------------------------------ expressions

std::vector<Value> Elaborator::positional(const py::Expr& call, Env& env) {
  std::vector<Value> out;
  for (const auto& a : call.elts) {
    if (a->kind == py::ExprKind::Starred) {
      Value v = eval(*a->lhs, env);
      if (!v.isSequence()) fail(a->loc, "only a tuple or list can be unpacked with '*'");
      out.insert(out.end(), v.elts.begin(), v.elts.end());
      continue;
    }
    out.push_back(eval(*a, env));
  }
  return out;
}

const py::Keyword* Elaborator::keyword(const py::Expr& call, const std::string& name) {
  for (const auto& k : call.keywords)
    if (k.name == name) return &k;
  return nullptr;
}

void Elaborator::checkKeywords(const py::Expr& call, const std::string& fn,
                               std::initializer_list<const char*> allowed) {
  for (const auto& k : call.keywords) {
    bool ok = false;
    for (const char* a : allowed) ok |= k.name == a;
    if (ok) continue;
    std::string list;
    for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
    if (k.name.empty()) fail(k.loc, fmt::format("'**' arguments are not supported in {}", fn));
    fail(k.loc, fmt::format("unknown keyword argument '{}' to {}; {}", k.name, fn,
                            list.empty() ? "it takes no keyword arguments" : "accepted: " + list));
  }
}

std::string Elaborator::kwargText(const Value& v) {
  // Recorded keyword arguments print as Python literals so printed IR parses back.
  if (v.isConstant() || v.kind == K::DType)
    return v.kind == K::DType ? "\"" + v.s + "\"" : pyRepr(v);
  return pyRepr(Value::str(describe(v)));
}

SourceLoc Elaborator::argLoc(const py::Expr& call, size_t i) {
  for (size_t j = 0; j <= i && j < call.elts.size(); ++j)
    if (call.elts[j]->kind == py::ExprKind::Starred) return call.loc;
  return i < call.elts.size() ? call.elts[i]->loc : call.loc;
}

std::string Elaborator::describe(const Value& v) {
  switch (v.kind) {
    case K::None:
    case K::Bool:
    case K::Int:
    case K::Float:
    case K::Str:
      return pyRepr(v);
    case K::DType:
      return "T." + v.s;
    case K::Tuple:
    case K::List:
      return v.allConstant() ? pyRepr(v) : "a " + typeName(v);
    case K::Buffer:
      return fmt::format("buffer '{}'", v.buffer->name);
    case K::Access:
      return fmt::format("an element of '{}'", v.buffer->name);
    case K::Expr: {
      std::vector<std::string> dyn;
      dynamicNames(v.expr, dyn);
      if (dyn.empty()) return "a run-time value";
      return fmt::format(
          "a run-time value of the T.dynamic size '{}'; pass -D {}=VALUE to make it "
          "a constant",
          dyn[0], dyn[0]);
    }
    case K::Opaque:
      if (isDeferredDynamic(v))
        return fmt::format("the T.dynamic size '{}'; pass -D {}=VALUE to make it a constant",
                           v.elts[0].s, v.elts[0].s);
      return fmt::format("'{}'", v.s);
    case K::Function:
      return fmt::format("function '{}'", v.s);
    case K::DialectFn:
      return v.s.rfind("builtins.", 0) == 0 ? fmt::format("the builtin '{}'", v.s.substr(9))
                                            : "T." + v.s;
    default:
      return "a " + typeName(v);
  }
}

int64_t Elaborator::toConstInt(const Value& v, SourceLoc loc, const std::string& what) {
  if (v.kind == K::Int) return v.i;
  if (v.kind == K::Bool) return v.b;
  if (v.kind == K::Expr)
    if (auto c = asConstInt(v.expr)) return *c;
  if (v.kind == K::Undefined)
    fail(loc, fmt::format("{} could not be evaluated at compile time: {}", what, v.s));
  if (v.kind == K::Opaque && !isDeferredDynamic(v))
    fail(loc, fmt::format("{} must be a compile-time integer, got the host value {}, which "
                          "tilesched cannot compute (it runs no host code such as device "
                          "queries); use a constant, or a factory parameter given with -D",
                          what, describe(v)));
  fail(loc, fmt::format("{} must be a compile-time integer, got {}", what,
                        v.kind == K::Expr || isDeferredDynamic(v) ? describe(v) : typeName(v)));
}

DType Elaborator::toDType(const Value& v, SourceLoc loc) {
  if (v.kind == K::DType || v.kind == K::Str) {
    if (auto t = parseDType(v.s)) return *t;
    fail(loc, fmt::format("unknown dtype '{}'; expected one of {}", v.s, dtypeNameList()));
  }
  if (v.kind == K::Undefined) fail(loc, "dtype could not be evaluated at compile time: " + v.s);
  fail(loc, fmt::format("expected a dtype such as \"float16\" or T.float16, got {}", describe(v)));
}

std::vector<int64_t> Elaborator::toConstShape(const Value& v, SourceLoc loc,
                                              const std::string& what) {
  std::vector<Value> dims = v.isSequence() ? v.elts : std::vector<Value>{v};
  if (dims.empty()) fail(loc, fmt::format("{} needs at least one dimension", what));
  std::vector<int64_t> shape;
  int64_t elements = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const Value& d = dims[i];
    if (d.kind == K::Undefined)
      fail(loc, fmt::format("dimension {} of {} could not be evaluated at compile time: {}", i,
                            what, d.s));
    std::optional<int64_t> c;
    if (d.kind == K::Int) c = d.i;
    if (d.kind == K::Expr) c = asConstInt(d.expr);
    if (!c)
      fail(loc, fmt::format("dimension {} of {} must be a compile-time integer, got {}", i, what,
                            describe(d)));
    if (*c <= 0) fail(loc, fmt::format("dimension {} of {} must be positive, got {}", i, what, *c));
    if (__builtin_mul_overflow(elements, *c, &elements) || elements > kMaxElements)
      fail(loc, fmt::format("{} may hold at most 2^40 elements", what));
    shape.push_back(*c);
  }
  return shape;
}

Expr Elaborator::toExpr(const Value& v, SourceLoc loc, std::optional<DType> hint) {
  switch (v.kind) {
    case K::Int:
      if (hint && isFloat(*hint)) return floatImm(static_cast<double>(v.i), *hint);
      // A constant takes the other operand's int type when it fits there
      // (`bx * 2 ** 40` must not wrap to `bx * 0`).
      if (hint && isInt(*hint) && asConstInt(intImm(v.i, *hint)) == v.i) return intImm(v.i, *hint);
      if (v.i > std::numeric_limits<int32_t>::max() || v.i < std::numeric_limits<int32_t>::min())
        return intImm(v.i, DType::Int64);
      return intImm(v.i);
    case K::Bool:
      return boolImm(v.b);
    case K::Float:
      return floatImm(v.f, hint && isFloat(*hint) ? *hint : DType::Float32);
    case K::Expr:
      return v.expr;
    case K::Access: {
      std::vector<Expr> idx;
      for (const auto& a : v.access) {
        if (a.isSlice)
          fail(a.loc,
               fmt::format("a slice of '{}' is a region, not a scalar value", v.buffer->name));
        idx.push_back(a.start);
      }
      if (idx.size() != v.buffer->shape.size())
        fail(loc, fmt::format("buffer '{}' has rank {} but is indexed with {} indices",
                              v.buffer->name, v.buffer->shape.size(), idx.size()));
      return load(v.buffer, idx);
    }
    case K::Buffer:
      if (v.buffer->storage->scope == MemScope::LocalVar) return load(v.buffer, {intImm(0)});
      fail(loc,
           fmt::format("buffer '{}' is used where a scalar value is expected", v.buffer->name));
    case K::Undefined:
      fail(loc, "value could not be evaluated at compile time: " + v.s);
    default:
      fail(loc, fmt::format("expected a scalar value, got {} '{}'", typeName(v), pyStr(v)));
  }
}

// Run-time operands: a Python number takes the other operand's dtype (TVM's
// rule); two numbers (only reachable when the caller mixes in a run-time
// condition) keep their own.
std::pair<Expr, Expr> Elaborator::unifyOperands(const Value& a, SourceLoc aLoc, const Value& b,
                                                SourceLoc bLoc) {
  Expr x = a.isNumber() ? Expr() : toExpr(a, aLoc);
  Expr y = b.isNumber() ? Expr() : toExpr(b, bLoc);
  if (!x && !y) x = toExpr(a, aLoc);
  if (!x) x = toExpr(a, aLoc, y->dtype);
  if (!y) y = toExpr(b, bLoc, x->dtype);
  return {x, y};
}

Value Elaborator::binaryOp(const std::string& op, const Value& a, const Value& b, SourceLoc loc) {
  if (a.kind == K::Undefined) fail(loc, "value could not be evaluated at compile time: " + a.s);
  if (b.kind == K::Undefined) fail(loc, "value could not be evaluated at compile time: " + b.s);
  for (const Value* x : {&a, &b})
    if (isDeferredDynamic(*x))
      fail(loc,
           fmt::format("factory code cannot compute with the T.dynamic size '{}' (its value is "
                       "known only at run time); pass -D {}=VALUE to make it a constant",
                       x->elts[0].s, x->elts[0].s));
  if (a.isConstant() && b.isConstant()) return constBinary(op, a, b, loc);
  // Run-time arithmetic: constants take the other operand's dtype (TVM's rule).
  auto [x, y] = unifyOperands(a, loc, b, loc);
  static const std::map<std::string, BinOp> kOps = {
      {"+", BinOp::Add},       {"-", BinOp::Sub},      {"*", BinOp::Mul},    {"/", BinOp::Div},
      {"//", BinOp::FloorDiv}, {"%", BinOp::FloorMod}, {"&", BinOp::BitAnd}, {"|", BinOp::BitOr},
      {"^", BinOp::BitXor},    {"<<", BinOp::Shl},     {">>", BinOp::Shr}};
  auto it = kOps.find(op);
  if (it == kOps.end())
    fail(loc, fmt::format("operator '{}' is not supported on run-time values", op));
  if (op == "/" && !isFloat(x->dtype) && !isFloat(y->dtype))
    fail(loc, "'/' on integers is true division; use '//' for integer division");
  if ((op == "//" || op == "%") && (isFloat(x->dtype) || isFloat(y->dtype)))
    fail(loc, fmt::format("'{}' needs integer operands; use '/' for floats", op));
  bool bitwise = op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>";
  // On two truth values (`(i < n) & (j < m)`) & | ^ are and, or, differs.
  if ((op == "&" || op == "|" || op == "^") && x->dtype == DType::Bool && y->dtype == DType::Bool)
    return Value::irExpr(binary(op == "&" ? BinOp::And : op == "|" ? BinOp::Or : BinOp::NE, x, y));
  if (bitwise && (!isInt(x->dtype) || !isInt(y->dtype)))
    fail(loc, fmt::format("'{}' needs integer operands, got {} and {}", op, dtypeName(x->dtype),
                          dtypeName(y->dtype)));
  if ((op == "//" || op == "%") && isConstInt(y, 0))
    fail(loc, op == "//" ? "integer division by zero" : "integer modulo by zero");
  if (op != "//" && op != "%" && !bitwise)
    if (Expr scalarized = float8Arithmetic(it->second, x, y)) return Value::irExpr(scalarized);
  if ((isFloat8(x->dtype) || isFloat8(y->dtype)) && x->dtype != y->dtype)
    fail(loc, fmt::format("'{}' on {} and {} values is not supported: float8 values compute only "
                          "with values of their own format (through float32); convert first "
                          "with T.cast(x, \"float32\")",
                          op, dtypeName(x->dtype), dtypeName(y->dtype)));
  rejectFloat8Compute({x, y}, loc, fmt::format("'{}'", op));
  return Value::irExpr(binary(it->second, x, y));
}

// Python slicing of a constant tuple, list or string: `dims[1:]`, `s[::-1]`.
Value Elaborator::sliceConstant(const Value& base, const py::Expr& slice, Env& env) {
  int64_t n = base.kind == K::Str ? base.s.size() : base.elts.size();
  auto bound = [&](const py::Expr* e, const char* what) -> std::optional<int64_t> {
    if (!e) return std::nullopt;
    Value v = eval(*e, env);
    if (v.kind == K::None) return std::nullopt;
    return toConstInt(v, e->loc, what);
  };
  int64_t step = bound(slice.step.get(), "slice step").value_or(1);
  if (step == 0) fail(slice.step->loc, "slice step cannot be zero");
  // CPython's PySlice_AdjustIndices.
  auto adjust = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v;
    if (x < 0) {
      x = x < -n ? -1 : x + n;
      if (x < 0) x = step < 0 ? -1 : 0;
    } else if (x >= n) {
      x = step < 0 ? n - 1 : n;
    }
    return x;
  };
  int64_t start = adjust(bound(slice.lhs.get(), "slice start"), step > 0 ? 0 : n - 1);
  int64_t stop = adjust(bound(slice.rhs.get(), "slice stop"), step > 0 ? n : -1);
  Value out = base;
  out.elts.clear();
  out.s.clear();
  for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
    if (i < 0 || i >= n) break;
    if (base.kind == K::Str)
      out.s += base.s[i];
    else
      out.elts.push_back(base.elts[i]);
    if (__builtin_add_overflow(i, step, &i)) break;
  }
  return out;
}

Value Elaborator::subscript(const Value& base, const py::Expr& index, Env& env, SourceLoc loc) {
  if (base.kind == K::Buffer) {
    Value acc;
    acc.kind = K::Access;
    acc.buffer = base.buffer;
    acc.loc = loc;
    std::vector<const py::Expr*> idx;
    if (index.kind == py::ExprKind::Tuple)
      for (const auto& e : index.elts) idx.push_back(e.get());
    else
      idx.push_back(&index);
    for (const py::Expr* e : idx) {
      AccessIndex ai;
      ai.loc = e->loc;
      if (e->kind == py::ExprKind::Slice) {
        ai.isSlice = true;
        if (e->step) fail(e->step->loc, "slices with a step are not supported");
        if (e->lhs) ai.start = toExpr(eval(*e->lhs, env), e->lhs->loc);
        if (e->rhs) ai.stop = toExpr(eval(*e->rhs, env), e->rhs->loc);
        for (const Expr& x : {ai.start, ai.stop})
          if (x && isFloat(x->dtype)) fail(e->loc, "buffer indices must be integers");
      } else {
        ai.start = toExpr(eval(*e, env), e->loc);
        if (isFloat(ai.start->dtype)) fail(e->loc, "buffer indices must be integers");
      }
      acc.access.push_back(std::move(ai));
    }
    // v[i] of a T.simd.alloc_local array names register i (its lanes are the
    // second dimension).
    bool registerRow = acc.access.size() == 1 && !acc.access[0].isSlice &&
                       simdArrays_.count(base.buffer->storage.get());
    if (acc.access.size() != base.buffer->shape.size() && !registerRow)
      fail(loc, fmt::format("buffer '{}' has rank {} but is indexed with {} {}", base.buffer->name,
                            base.buffer->shape.size(), acc.access.size(),
                            acc.access.size() == 1 ? "index" : "indices"));
    return acc;
  }
  if (base.isSequence() || base.kind == K::Str) {
    int64_t n = base.kind == K::Str ? base.s.size() : base.elts.size();
    if (index.kind == py::ExprKind::Slice) return sliceConstant(base, index, env);
    Value i = eval(index, env);
    int64_t k = toConstInt(i, index.loc, "index");
    if (k < 0) k += n;
    if (k < 0 || k >= n)
      fail(index.loc,
           fmt::format("index {} out of range for a {} of length {}", i.i, typeName(base), n));
    if (base.kind == K::Str) return Value::str(std::string(1, base.s[k]));
    return base.elts[k];
  }
  if (base.kind == K::Dict) {
    Value key = eval(index, env);
    for (const auto& [k, v] : base.items)
      if (valuesEqual(k, key)) return v;
    fail(index.loc, fmt::format("key {} not found", pyRepr(key)));
  }
  if (base.kind == K::DialectFn && (base.s == "Tensor" || base.s == "Buffer")) {
    // `T.Tensor[(M, N), "float16"]`: the subscript spelling of T.Tensor((M, N), "float16").
    Value args = eval(index, env);
    if (index.kind != py::ExprKind::Tuple || args.elts.size() != 2)
      fail(index.loc, fmt::format("T.{}[...] takes a shape and a dtype: T.{}[(M, N), \"float16\"]",
                                  base.s, base.s));
    Value t = Value::opaque("T.Tensor");
    t.elts = args.elts;
    return t;
  }
  if (base.kind == K::DialectFn)
    fail(loc,
         fmt::format("{} cannot be subscripted; of the T functions only T.Tensor[shape, dtype] "
                     "and T.Buffer[shape, dtype] take a subscript",
                     describe(base)));
  if (base.kind == K::Opaque) return Value::opaque(base.s + "[...]");
  if (base.kind == K::Undefined)
    fail(loc, "value could not be evaluated at compile time: " + base.s);
  fail(loc, fmt::format("'{}' object is not subscriptable", typeName(base)));
}

// A dict display `{k: v, **other}`: a later key replaces an equal earlier
// one in place, as in Python.
Value Elaborator::evalDictDisplay(const py::Expr& e, Env& env) {
  Value d;
  d.kind = K::Dict;
  d.loc = e.loc;
  auto put = [&](Value key, Value value) {
    for (auto& [k, v] : d.items)
      if (valuesEqual(k, key)) {
        v = std::move(value);
        return;
      }
    d.items.push_back({std::move(key), std::move(value)});
  };
  for (size_t i = 0; i < e.values.size(); ++i) {
    if (e.keys[i]) {
      put(eval(*e.keys[i], env), eval(*e.values[i], env));
      continue;
    }
    Value other = eval(*e.values[i], env);  // `**other`
    if (other.kind != K::Dict)
      fail(e.values[i]->loc, fmt::format("'**' in a dict needs a dict, got {}", describe(other)));
    for (const auto& [k, v] : other.items) put(k, v);
  }
  return d;
}

Value Elaborator::eval(const py::Expr& e, Env& env) {
  using EK = py::ExprKind;
  switch (e.kind) {
    case EK::Int:
      return Value::integer(e.intValue);
    case EK::Float:
      if (e.imaginary) fail(e.loc, "complex numbers are not supported");
      return Value::floating(e.floatValue);
    case EK::Str:
      return Value::str(e.strValue);
    case EK::Bool:
      return Value::boolean(e.boolValue);
    case EK::None:
      return Value::none();
    case EK::FStr: {
      std::string out;
      for (const auto& part : e.fstrParts) {
        if (!part.expr) {
          out += part.literal;
          continue;
        }
        Value v = eval(*part.expr, env);
        out += part.conversion == 'r' ? pyRepr(v) : pyFormat(v, part.formatSpec);
      }
      return Value::str(out);
    }
    case EK::Name: {
      const Value* v = env.lookup(e.id);
      if (!v) fail(e.loc, fmt::format("name '{}' is not defined", e.id));
      if (v->scopeNote || !scopes_.empty()) noteNameRead(e, env);
      if (v->kind == K::Undefined && v->s == kFailedBinding)
        throw EvalError{e.loc, ""};  // its statement's error was reported
      if (v->kind == K::Undefined)
        fail(e.loc, fmt::format("'{}' could not be evaluated at compile time: {}", e.id, v->s));
      Value read = *v;
      read.scopeNote.reset();  // the note belongs to the binding, not to copies of its value
      if (kernel_) read = resolveDynamic(read);
      return read;
    }
    case EK::Tuple:
    case EK::List: {
      std::vector<Value> elts;
      for (const auto& x : e.elts) {
        if (x->kind == EK::Starred) {
          Value v = eval(*x->lhs, env);
          if (!v.isSequence()) fail(x->loc, "only a tuple or list can be unpacked with '*'");
          elts.insert(elts.end(), v.elts.begin(), v.elts.end());
        } else {
          elts.push_back(eval(*x, env));
        }
      }
      return e.kind == EK::Tuple ? Value::tuple(std::move(elts)) : Value::list(std::move(elts));
    }
    case EK::Dict:
      return evalDictDisplay(e, env);
    case EK::Attribute:
      return attributeOf(eval(*e.lhs, env), e.id, e.loc);
    case EK::Subscript:
      return subscript(eval(*e.lhs, env), *e.rhs, env, e.loc);
    case EK::Call:
      return evalCall(e, env);
    case EK::BinOp:
      return binaryOp(e.id, eval(*e.lhs, env), eval(*e.rhs, env), e.loc);
    case EK::UnaryOp: {
      Value a = eval(*e.lhs, env);
      if (a.isConstant()) return constUnary(e.id, a, e.loc);
      Expr x = toExpr(a, e.lhs->loc);
      if (e.id == "-") return Value::irExpr(negation(x));
      if (e.id == "+") return Value::irExpr(x);
      if (e.id == "not") return Value::irExpr(unary(UnOp::Not, x));
      fail(e.loc, fmt::format("operator '{}' is not supported on run-time values", e.id));
    }
    case EK::Compare: {
      Value left = eval(*e.lhs, env);
      Value result = Value::boolean(true);
      Expr runtime;
      for (size_t i = 0; i < e.compareOps.size(); ++i) {
        Value right = eval(*e.elts[i], env);
        const std::string& op = e.compareOps[i];
        bool membership = (op == "in" || op == "not in") && right.kind == K::Dict;
        if (left.isConstant() && (right.isConstant() || membership)) {
          if (!constCompare(op, left, right, e.loc)) return Value::boolean(false);
        } else {
          static const std::map<std::string, BinOp> kCmp = {{"<", BinOp::LT},  {"<=", BinOp::LE},
                                                            {">", BinOp::GT},  {">=", BinOp::GE},
                                                            {"==", BinOp::EQ}, {"!=", BinOp::NE}};
          auto it = kCmp.find(op);
          if (it == kCmp.end())
            fail(e.loc, fmt::format("'{}' is not supported on run-time values", op));
          auto [x, y] = unifyOperands(left, e.loc, right, e.loc);
          Expr c = binary(it->second, x, y);
          runtime = runtime ? binary(BinOp::And, runtime, c) : c;
        }
        left = right;
      }
      return runtime ? Value::irExpr(runtime) : result;
    }
    case EK::BoolOp: {
      bool isAnd = e.id == "and";
      Expr runtime;
      Value last;
      for (const auto& x : e.elts) {
        Value v = eval(*x, env);
        if (v.isConstant()) {
          bool t = truthy(v, x->loc);
          if (isAnd && !t && !runtime) return v;
          if (!isAnd && t && !runtime) return v;
          if (isAnd != t) {  // `x and False` / `x or True`: decided
            return runtime ? Value::boolean(t) : v;
          }
          last = v;
          continue;
        }
        Expr c = toExpr(v, x->loc);
        runtime = runtime ? binary(isAnd ? BinOp::And : BinOp::Or, runtime, c) : c;
      }
      return runtime ? Value::irExpr(runtime) : last;
    }
    case EK::IfExp: {
      Value cond = eval(*e.rhs, env);
      if (cond.isConstant())
        return truthy(cond, e.rhs->loc) ? eval(*e.lhs, env) : eval(*e.step, env);
      Value a = eval(*e.lhs, env), b = eval(*e.step, env);
      auto [x, y] = unifyOperands(a, e.lhs->loc, b, e.step->loc);
      return Value::irExpr(select(toExpr(cond, e.rhs->loc), x, y));
    }
    case EK::Slice:
      fail(e.loc, "a slice is only valid inside a subscript");
    case EK::Ellipsis:
      fail(e.loc, "'...' is not supported here");
    case EK::Set:
      fail(e.loc, "set literals are not supported");
    case EK::Starred:
      fail(e.loc, "'*' unpacking is not supported here");
    case EK::Lambda:
      fail(e.loc, "lambda expressions are not supported");
    case EK::Comprehension:
      fail(e.loc, "comprehensions are not supported");
  }
  fail(e.loc, "unsupported expression");
}

// `d.get(k[, default])`, `d.keys()`, `d.values()`, `d.items()` on a dict built in
// factory code (e.g. a table of measured latencies per shape).
Value Elaborator::callDictMethod(const Value& dict, const std::string& method, const py::Expr& call,
                                 Env& env) {
  checkKeywords(call, method, {});
  if (method == "get") {
    if (call.elts.empty() || call.elts.size() > 2)
      fail(call.loc, "get takes a key and an optional default: d.get(key, default)");
    Value key = eval(*call.elts[0], env);
    for (const auto& [k, v] : dict.items)
      if (valuesEqual(k, key)) return v;
    return call.elts.size() == 2 ? eval(*call.elts[1], env) : Value::none();
  }
  if (!call.elts.empty()) fail(call.loc, fmt::format("{}() takes no arguments", method));
  std::vector<Value> out;
  for (const auto& [k, v] : dict.items)
    out.push_back(method == "keys" ? k : method == "values" ? v : Value::tuple({k, v}));
  return Value::list(std::move(out));
}

Value Elaborator::evalCall(const py::Expr& call, Env& env) {
  if (call.lhs->kind == py::ExprKind::Attribute && call.lhs->id == "astype") {
    // `x.astype(dtype)` on a scalar value: T.cast(x, dtype).
    Value x = eval(*call.lhs->lhs, env);
    bool scalar = x.isNumber() || x.kind == K::Expr || x.kind == K::Access ||
                  (x.kind == K::Buffer && x.buffer->storage->scope == MemScope::LocalVar);
    if (scalar) {
      checkKeywords(call, "astype", {});
      if (call.elts.size() != 1)
        fail(call.loc, "astype takes one argument, the dtype: x.astype(\"float32\")");
      DType t = toDType(eval(*call.elts[0], env), argLoc(call, 0));
      return Value::irExpr(cast(t, x.isNumber() ? toExpr(x, call.loc, t) : toExpr(x, call.loc)));
    }
  }
  if (call.lhs->kind == py::ExprKind::Attribute) {
    const std::string& method = call.lhs->id;
    if (method == "get" || method == "keys" || method == "values" || method == "items") {
      Value base = eval(*call.lhs->lhs, env);
      if (base.kind == K::Dict) return callDictMethod(base, method, call, env);
    }
  }
  Value fn = eval(*call.lhs, env);
  switch (fn.kind) {
    case K::DialectFn:
      if (fn.s.rfind("builtins.", 0) == 0) return callBuiltin(fn.s.substr(9), call, env);
      return callDialect(fn.s, call, env);
    case K::DType: {
      // T.float32(x): a typed constant or a cast.
      DType t = *parseDType(fn.s);
      if (call.elts.size() != 1)
        fail(call.loc, fmt::format("T.{}() takes exactly one argument", fn.s));
      Value v = eval(*call.elts[0], env);
      if (v.kind == K::Str) {
        if (v.s == "inf" || v.s == "-inf" || v.s == "nan")
          return Value::irExpr(
              floatImm(v.s == "nan" ? NAN : (v.s == "inf" ? INFINITY : -INFINITY), t));
        fail(call.loc, fmt::format("cannot convert '{}' to {}", v.s, fn.s));
      }
      if (v.isNumber()) {
        if (isFloat(t))
          return Value::irExpr(floatImm(
              v.kind == K::Float ? v.f : static_cast<double>(v.kind == K::Int ? v.i : v.b), t));
        if (v.kind == K::Float) {
          if (!std::isfinite(v.f) || std::fabs(v.f) > 9.2e18)
            fail(call.loc, fmt::format("cannot convert {} to {}", floatRepr(v.f), fn.s));
          return Value::irExpr(intImm(static_cast<int64_t>(v.f), t));
        }
        return Value::irExpr(intImm(v.kind == K::Int ? v.i : v.b, t));
      }
      return Value::irExpr(cast(t, toExpr(v, call.loc)));
    }
    case K::Function:
      return callFunction(fn, call, env);
    case K::Opaque:
      if (fn.def && fn.def->kind == py::StmtKind::ClassDef && isDataclass(*fn.def))
        return constructDataclass(fn, call, env);
      if (auto v = hostHelper(fn.s, call, env)) return *v;
      if (fn.s == "pytest.param") {
        // `pytest.param(a, b, id=..., marks=...)`: one parameter set (its values).
        Value set = Value::tuple(positional(call, env));
        set.s = "pytest.param";
        return set;
      }
      return Value::opaque(fn.s + "(...)");
    case K::Module:
      fail(call.loc, "a module is not callable");
    default:
      fail(call.loc, fmt::format("'{}' object is not callable", typeName(fn)));
  }
}

// `base.id` (also `getattr(base, "id")`).
Value Elaborator::attributeOf(const Value& base, const std::string& id, SourceLoc loc) {
  if (base.kind == K::Module && base.closure) {
    // `lib.name` after `import lib` (a module next to the compiled file).
    auto it = base.closure->names.find(id);
    if (it == base.closure->names.end())
      fail(loc, fmt::format("module '{}' has no attribute '{}'", base.s, id));
    if (it->second.kind == K::Undefined)
      fail(loc, fmt::format("'{}.{}' could not be evaluated at compile time: {}", base.s, id,
                            it->second.s));
    return it->second;
  }
  if (base.kind == K::Module) {
    if (base.s == "tilelang" && id == "language") return Value::module("T");
    if (base.s == "tilelang") return Value::opaque("tilelang." + id);
    // T.float is TileLang's name for float32 (Python float → "float32");
    // T.int stays unknown (TVM gives it no dtype meaning of its own).
    if (auto t = parseDType(id); t && id != "int") return Value::dtype(*t);
    return Value::dialect(id);
  }
  // T.simd.vadd, T.vmi.create_mask, ...: a dotted dialect name, so the
  // message at the call names the construct.
  if (base.kind == K::DialectFn && base.s.rfind("builtins.", 0) != 0)
    return Value::dialect(base.s + "." + id);
  if (base.kind == K::Buffer) {
    if (id == "shape") {
      std::vector<Value> dims;
      for (const auto& d : base.buffer->shape) {
        if (auto c = asConstInt(d))
          dims.push_back(Value::integer(*c));
        else
          dims.push_back(Value::irExpr(d));
      }
      return Value::tuple(std::move(dims));
    }
    if (id == "dtype") return Value::dtype(base.buffer->dtype);
    // X.data stands for X's bytes: `T.Tensor(shape, dtype, X.data)` views them.
    if (id == "data") return base;
    if (id == "astype" && base.buffer->storage->scope != MemScope::LocalVar)
      fail(loc, fmt::format("astype converts a scalar value; to convert buffer '{}' use "
                            "T.copy into a buffer of the new dtype",
                            base.buffer->name));
    fail(loc, fmt::format("buffer has no attribute '{}'; available: shape, dtype, data", id));
  }
  if (auto field = dataclassAttribute(base, id, loc)) return *field;
  if (base.kind == K::Opaque && base.s == "argparse.Namespace") {
    for (const auto& [key, v] : base.items)
      if (key.s == id) {
        if (v.kind == K::Undefined)
          fail(loc, fmt::format("'{}' could not be evaluated at compile time: {}", id, v.s));
        return v;
      }
    fail(loc, fmt::format("no argparse option '--{}' with a default", id));
  }
  if (base.kind == K::Opaque) return Value::opaque(base.s + "." + id);
  if (base.kind == K::Str &&
      (id == "upper" || id == "lower" || id == "format" || id == "startswith"))
    return Value::opaque("str." + id);
  fail(loc, fmt::format("'{}' object has no attribute '{}'", typeName(base), id));
}

Value Elaborator::callBuiltin(const std::string& name, const py::Expr& call, Env& env) {
  auto args = positional(call, env);
  auto need = [&](size_t n) {
    if (args.size() != n)
      fail(call.loc, fmt::format("{}() takes {} argument{} ({} given)", name, n, n == 1 ? "" : "s",
                                 args.size()));
  };
  if (name == "min" || name == "max") {
    if (args.size() == 1 && args[0].isSequence()) args = args[0].elts;
    if (args.empty()) fail(call.loc, name + "() expects at least one argument");
    Value best = args[0];
    for (size_t i = 1; i < args.size(); ++i) {
      const Value& v = args[i];
      if (best.isConstant() && v.isConstant()) {
        bool less = constCompare("<", v, best, call.loc);
        if (name == "min" ? less : constCompare(">", v, best, call.loc)) best = v;
        continue;
      }
      Expr x = toExpr(best, call.loc), y = toExpr(v, call.loc, x->dtype);
      best = Value::irExpr(binary(name == "min" ? BinOp::Min : BinOp::Max, x, y));
    }
    return best;
  }
  if (name == "abs") {
    need(1);
    if (args[0].isConstant()) {
      if (args[0].kind == K::Float) return Value::floating(std::fabs(args[0].f));
      return constBinary("*", args[0],
                         Value::integer(toConstInt(args[0], call.loc, "abs argument") < 0 ? -1 : 1),
                         call.loc);
    }
    Expr x = toExpr(args[0], call.loc);
    rejectFloat8Compute({x}, call.loc, "abs");
    return Value::irExpr(unary(UnOp::Abs, x));
  }
  if (name == "int" || name == "float" || name == "bool" || name == "str") {
    if (args.empty())
      return name == "str" ? Value::str("")
                           : (name == "float" ? Value::floating(0) : Value::integer(0));
    need(1);
    const Value& v = args[0];
    if (name == "str") return Value::str(pyStr(v));
    if (name == "bool") return Value::boolean(truthy(v, call.loc));
    if (v.kind == K::Str) {
      try {
        size_t pos = 0;
        if (name == "int") {
          int64_t x = std::stoll(v.s, &pos);
          if (pos == v.s.size()) return Value::integer(x);
        } else {
          double x = std::stod(v.s, &pos);
          if (pos == v.s.size()) return Value::floating(x);
        }
      } catch (const std::exception&) {
      }
      fail(call.loc, fmt::format("invalid literal for {}(): {}", name, pyRepr(v)));
    }
    if (!v.isNumber()) {
      if (v.kind == K::Expr || v.kind == K::Access)
        return Value::irExpr(
            cast(name == "int" ? DType::Int32 : DType::Float32, toExpr(v, call.loc)));
      fail(call.loc, fmt::format("{}() argument must be a number, not '{}'", name, typeName(v)));
    }
    if (name == "float")
      return Value::floating(
          v.kind == K::Float ? v.f : static_cast<double>(v.kind == K::Int ? v.i : v.b));
    if (v.kind == K::Float) {
      if (!std::isfinite(v.f) || std::fabs(v.f) > 9.2e18)
        fail(call.loc, "cannot convert float to int");
      return Value::integer(static_cast<int64_t>(v.f));
    }
    return Value::integer(v.kind == K::Int ? v.i : v.b);
  }
  if (name == "getattr") {
    // getattr(obj, "name"[, default]) is obj.name: `getattr(T, f"reduce_{op}")`.
    if (args.size() != 2 && args.size() != 3)
      fail(call.loc,
           fmt::format("getattr takes (object, name[, default]) ({} given)", args.size()));
    if (args[1].kind != K::Str) fail(call.loc, "the name given to getattr must be a string");
    if (args.size() == 2) return attributeOf(args[0], args[1].s, call.loc);
    try {
      return attributeOf(args[0], args[1].s, call.loc);
    } catch (const EvalError&) {
      return args[2];
    }
  }
  if (name == "len") {
    need(1);
    if (args[0].isSequence()) return Value::integer(args[0].elts.size());
    if (args[0].kind == K::Str) return Value::integer(args[0].s.size());
    if (args[0].kind == K::Dict) return Value::integer(args[0].items.size());
    fail(call.loc, fmt::format("object of type '{}' has no len()", typeName(args[0])));
  }
  if (name == "tuple" || name == "list") {
    if (args.empty()) return name == "tuple" ? Value::tuple({}) : Value::list({});
    need(1);
    if (!args[0].isSequence()) fail(call.loc, fmt::format("{}() needs a tuple or list", name));
    return name == "tuple" ? Value::tuple(args[0].elts) : Value::list(args[0].elts);
  }
  if (name == "print") return Value::none();
  if (name == "range") {
    // Compile-time helper loops (`for i in range(n)` in a factory helper).
    if (args.empty() || args.size() > 3)
      fail(call.loc, fmt::format("range expected 1 to 3 arguments, got {}", args.size()));
    std::vector<int64_t> a;
    for (size_t i = 0; i < args.size(); ++i)
      a.push_back(toConstInt(args[i], argLoc(call, i), "range() argument"));
    int64_t start = a.size() == 1 ? 0 : a[0], stop = a.size() == 1 ? a[0] : a[1];
    int64_t step = a.size() == 3 ? a[2] : 1;
    if (step == 0) fail(call.loc, "range() arg 3 must not be zero");
    std::vector<Value> out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (out.size() >= kMaxHelperIterations)
        fail(call.loc, fmt::format("range() longer than {} elements cannot be evaluated at "
                                   "compile time",
                                   kMaxHelperIterations));
      out.push_back(Value::integer(i));
    }
    return Value::list(std::move(out));
  }
  fail(call.loc, fmt::format("{}() cannot be evaluated at compile time", name));
}

// Runs a helper function for its return value (factory helpers such as
// `def get_tiles(n): return n // 64`).
Elaborator::CallLevel Elaborator::enterCall(SourceLoc loc, const char* message) {
  if (++callDepth_ > kMaxCallDepth) {
    --callDepth_;
    fail(loc, message);
  }
  return CallLevel(callDepth_);
}

Value Elaborator::callFunction(const Value& fn, const py::Expr& call, Env& env) {
  if (isPrimFunc(*fn.def)) fail(call.loc, "calling a @T.prim_func is not supported");
  if (isMacro(*fn.def)) {
    if (!kernel_ || !currentCtx_)
      fail(call.loc, fmt::format("macro '{}' can only be called inside a kernel", fn.def->name));
    return inlineMacro(fn, call, env, *currentCtx_);
  }
  CallLevel level = enterCall(call.loc, "call nesting too deep (recursive function?)");
  auto local = std::make_shared<Env>();
  local->parent = fn.closure;
  auto args = positional(call, env);
  const auto& params = fn.def->params;
  size_t ai = 0;
  for (const auto& p : params) {
    if (p.varArgs || p.varKwargs) continue;
    if (ai < args.size()) {
      local->bind(p.name, args[ai++]);
    } else if (const py::Keyword* k = keyword(call, p.name)) {
      local->bind(p.name, eval(*k->value, env));
    } else if (p.defaultValue) {
      local->bind(p.name, eval(*p.defaultValue, *fn.closure));
    } else {
      fail(call.loc, fmt::format("{}() missing required argument '{}'", fn.def->name, p.name));
    }
  }
  if (ai < args.size())
    fail(call.loc, fmt::format("{}() takes {} positional arguments", fn.def->name, params.size()));
  return runFunctionBody(fn, *local);
}

// Runs the body of helper function `fn` in `local` (its parameters bound):
// assignments, constant ifs, loops bounded at compile time, a return.
Value Elaborator::runFunctionBody(const Value& fn, Env& local) {
  // Helpers: assignments, constant ifs, `for` over constant sequences and
  // `while` (at most kMaxHelperIterations iterations in all), and a return.
  enum class Flow { Normal, Break, Continue, Return };
  std::optional<Value> result;
  size_t iterations = 0;
  auto tick = [&](SourceLoc loc) {
    if (++iterations > kMaxHelperIterations)
      fail(loc, fmt::format("function '{}' runs more than {} loop iterations at compile time",
                            fn.def->name, kMaxHelperIterations));
  };
  std::function<Flow(const py::StmtList&)> run = [&](const py::StmtList& body) -> Flow {
    for (const auto& s : body) {
      switch (s->kind) {
        case py::StmtKind::Return:
          result = s->value ? eval(*s->value, local) : Value::none();
          return Flow::Return;
        case py::StmtKind::Assign:
          for (const auto& t : s->targets) assignTargets(*t, eval(*s->value, local), local, s->loc);
          break;
        case py::StmtKind::AugAssign:
          assignTargets(
              *s->targets[0],
              binaryOp(s->op, eval(*s->targets[0], local), eval(*s->value, local), s->loc), local,
              s->loc);
          break;
        case py::StmtKind::If: {
          Flow f = run(truthy(eval(*s->iter, local), s->loc) ? s->body : s->orelse);
          if (f != Flow::Normal) return f;
          break;
        }
        case py::StmtKind::For: {
          Value seq = eval(*s->iter, local);
          if (!seq.isSequence())
            fail(s->iter->loc, fmt::format("function '{}' loops over {}; only a range() or a "
                                           "constant tuple or list can be looped over at compile "
                                           "time",
                                           fn.def->name, describe(seq)));
          bool broke = false;
          for (const auto& x : seq.elts) {
            tick(s->loc);
            assignTargets(*s->targets[0], x, local, s->loc);
            Flow f = run(s->body);
            if (f == Flow::Return) return f;
            if (f == Flow::Break) {
              broke = true;
              break;
            }
          }
          if (!broke) {
            Flow f = run(s->orelse);
            if (f != Flow::Normal) return f;
          }
          break;
        }
        case py::StmtKind::While: {
          bool broke = false;
          while (truthy(eval(*s->iter, local), s->iter->loc)) {
            tick(s->loc);
            Flow f = run(s->body);
            if (f == Flow::Return) return f;
            if (f == Flow::Break) {
              broke = true;
              break;
            }
          }
          if (!broke) {
            Flow f = run(s->orelse);
            if (f != Flow::Normal) return f;
          }
          break;
        }
        case py::StmtKind::Break:
          return Flow::Break;
        case py::StmtKind::Continue:
          return Flow::Continue;
        case py::StmtKind::Pass:
        case py::StmtKind::Expr:
        case py::StmtKind::Import:
          break;
        case py::StmtKind::Assert:
          if (!truthy(eval(*s->value, local), s->loc))
            fail(s->loc,
                 "assertion failed" +
                     (s->annotation ? ": " + pyStr(eval(*s->annotation, local)) : std::string()));
          break;
        case py::StmtKind::Raise:
          fail(s->loc, raiseMessage(*s, local));
        default:
          fail(s->loc,
               fmt::format("function '{}' cannot be evaluated at compile time", fn.def->name));
      }
    }
    return Flow::Normal;
  };
  run(fn.def->body);
  return result ? *result : Value::none();
}

std::optional<Value> Elaborator::hostHelper(const std::string& name, const py::Expr& call,
                                            Env& env) {
  std::string n = name;
  for (const char* prefix : {"tilelang.math.", "tilelang.", "math."})
    if (n.rfind(prefix, 0) == 0) {
      n = std::string(name.rfind("math.", 0) == 0 ? "math." : "tilelang.") +
          n.substr(std::string(prefix).size());
      break;
    }
  static const std::set<std::string> kKnown = {"tilelang.next_power_of_2",
                                               "tilelang.cdiv",
                                               "math.ceil",
                                               "math.floor",
                                               "math.log2",
                                               "math.sqrt",
                                               "math.gcd"};
  if (!kKnown.count(n)) return std::nullopt;
  checkKeywords(call, name, {});
  auto args = positional(call, env);
  for (const auto& a : args)
    if (!a.isNumber()) return std::nullopt;  // run-time or unknown: not a host computation
  size_t want = (n == "tilelang.cdiv" || n == "math.gcd") ? 2 : 1;
  if (args.size() != want)
    fail(call.loc, fmt::format("{}() takes {} argument{} ({} given)", name, want,
                               want == 1 ? "" : "s", args.size()));
  auto asDouble = [](const Value& v) {
    return v.kind == K::Float ? v.f : static_cast<double>(v.kind == K::Int ? v.i : v.b);
  };
  auto toInt = [&](double d) {
    if (!std::isfinite(d) || std::fabs(d) > 9.2e18)
      fail(call.loc, fmt::format("{}() result does not fit in a 64-bit integer", name));
    return Value::integer(static_cast<int64_t>(d));
  };
  const Value& x = args[0];
  if (n == "tilelang.next_power_of_2") {
    // 1 << (x - 1).bit_length(), as tilelang.math defines it.
    int64_t v = toConstInt(x, argLoc(call, 0), "next_power_of_2 argument");
    int64_t bits = bitLength(v == INT64_MIN ? v : v - 1);
    if (bits >= 63) fail(call.loc, "next_power_of_2() result does not fit in a 64-bit integer");
    return Value::integer(int64_t(1) << bits);
  }
  if (n == "tilelang.cdiv") {
    // (a + b - 1) // b, as tilelang.math defines it.
    Value sum =
        constBinary("-", constBinary("+", args[0], args[1], call.loc), Value::integer(1), call.loc);
    return constBinary("//", sum, args[1], call.loc);
  }
  if (n == "math.ceil" || n == "math.floor") {
    if (x.kind != K::Float) return Value::integer(x.kind == K::Int ? x.i : x.b);
    return toInt(n == "math.ceil" ? std::ceil(x.f) : std::floor(x.f));
  }
  if (n == "math.log2" || n == "math.sqrt") {
    double d = asDouble(x);
    if (n == "math.log2" ? d <= 0 : d < 0) fail(call.loc, "ValueError: math domain error");
    return Value::floating(n == "math.log2" ? std::log2(d) : std::sqrt(d));
  }
  // math.gcd
  int64_t a = toConstInt(args[0], argLoc(call, 0), "gcd argument");
  int64_t b = toConstInt(args[1], argLoc(call, 1), "gcd argument");
  if (a == INT64_MIN || b == INT64_MIN)
    fail(call.loc, "gcd() result does not fit in a 64-bit integer");
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return Value::integer(a);
}

void Elaborator::checkDialectArity(const std::string& name, const py::Expr& call,
                                   const std::vector<Value>& a, size_t n) {
  if (a.size() != n)
    fail(call.loc, fmt::format("T.{}() takes {} argument{} ({} given)", name, n, n == 1 ? "" : "s",
                               a.size()));
}

// T.clamp(x, min_val, max_val).
Value Elaborator::dialectClamp(const py::Expr& call, Env& env) {
  // T.clamp(x, lo, hi) is T.min(T.max(x, lo), hi), as TileLang defines it;
  // a NaN x stays NaN (T.max and T.min keep a NaN first operand).
  checkKeywords(call, "T.clamp", {"min_val", "max_val"});
  auto a = positional(call, env);
  std::vector<SourceLoc> locs;
  for (size_t i = 0; i < a.size(); ++i) locs.push_back(argLoc(call, i));
  size_t positionalCount = a.size();
  for (const char* kw : {"min_val", "max_val"})
    if (const py::Keyword* k = keyword(call, kw)) {
      if (positionalCount > (std::string(kw) == "min_val" ? 1u : 2u))
        fail(k->loc, fmt::format("T.clamp got two values for {}", kw));
      a.push_back(eval(*k->value, env));
      locs.push_back(k->value->loc);
    }
  if (a.size() != 3)
    fail(call.loc, fmt::format("T.clamp takes (x, min_val, max_val) ({} given)", a.size()));
  auto [x, lo] = unifyOperands(a[0], locs[0], a[1], locs[1]);
  Expr low = binary(BinOp::Max, x, lo);
  auto [y, hi] = unifyOperands(Value::irExpr(low), call.loc, a[2], locs[2]);
  rejectFloat8Compute({x, lo, hi}, call.loc, "T.clamp");
  return Value::irExpr(binary(BinOp::Min, y, hi));
}

// T.max_value(dtype) / T.min_value(dtype).
Value Elaborator::dialectLimit(const std::string& name, const py::Expr& call, Env& env) {
  // The largest / smallest finite value of a dtype.
  auto a = positional(call, env);
  checkDialectArity(name, call, a, 1);
  DType t = toDType(a[0], argLoc(call, 0));
  bool largest = name == "max_value";
  if (isFloat(t)) {
    double m = t == DType::Float32    ? 3.4028234663852886e38
               : t == DType::Float16  ? 65504.0
               : t == DType::BFloat16 ? 3.3895313892515355e38
                                      : 0.0;
    if (m == 0.0) fail(call.loc, fmt::format("T.{} of {} is not supported", name, dtypeName(t)));
    return Value::irExpr(floatImm(largest ? m : -m, t));
  }
  int bits = dtypeBytes(t) * 8;
  int64_t v = 0;
  if (isSigned(t))
    v = largest ? (bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1)
                : (bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1)));
  else
    v = largest ? (bits >= 63 ? INT64_MAX : (int64_t(1) << bits) - 1) : 0;
  if (t == DType::Bool) v = largest ? 1 : 0;
  return Value::irExpr(intImm(v, t));
}

// T.dynamic("name"): a -D size, the size the file's own call gives, or the kernel's dynamic
// variable.
Value Elaborator::dialectDynamic(const py::Expr& call, Env& env) {
  auto a = positional(call, env);
  if (a.empty() || a[0].kind != K::Str)
    fail(call.loc, "T.dynamic() needs the size's name as a string");
  for (const auto& [n, v] : options_.defines) {
    if (n != a[0].s) continue;
    usedDefines_.push_back(n);
    int64_t size = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), size);
    if (ec != std::errc() || end != v.data() + v.size() || size < 1)
      fail(call.loc, fmt::format("-D {}={} is not a positive integer size", n, v));
    return Value::integer(size);
  }
  // The value the tensors of the file's own kernel call give, as if by -D.
  if (auto it = dynamicFromCall_.find(a[0].s); it != dynamicFromCall_.end())
    return Value::integer(it->second);
  if (!kernel_) {
    Value deferred = Value::opaque("T.dynamic");
    deferred.elts.push_back(Value::str(a[0].s));
    deferred.loc = call.loc;
    return deferred;
  }
  return dynamicSize(a[0].s);
}

// T.Tensor / T.Buffer(shape, dtype[, X.data]).
Value Elaborator::dialectTensor(const std::string& name, const py::Expr& call, Env& env) {
  Value t;
  t.kind = K::Opaque;
  t.s = "T.Tensor";
  auto a = positional(call, env);
  if (a.size() < 1) fail(call.loc, fmt::format("T.{}() needs a shape and a dtype", name));
  t.elts = a;
  if (const py::Keyword* k = keyword(call, "dtype")) t.elts.push_back(eval(*k->value, env));
  if (const py::Keyword* k = keyword(call, "shape"))
    t.elts.insert(t.elts.begin(), eval(*k->value, env));
  // `T.Tensor(shape, dtype, X.data)` in a kernel: X's bytes in another shape
  // and dtype, as T.view(X, shape, dtype).
  if (kernel_ && t.elts.size() == 3 && t.elts[2].kind == K::Buffer) {
    if (simdNameHint_.empty())
      fail(call.loc, fmt::format("T.{}(shape, dtype, X.data) must be assigned to a name", name));
    return makeView("T.view", t.elts[2].buffer, t.elts[0], t.elts[1], call.loc, call.loc, call.loc,
                    simdNameHint_);
  }
  return t;
}

// T.truncdiv / T.truncmod: C's / and % (rounding toward zero): floor's
// result, corrected where the remainder is not zero and the signs differ.
Value Elaborator::dialectTruncated(const std::string& name, const py::Expr& call, Env& env) {
  auto a = positional(call, env);
  checkDialectArity(name, call, a, 2);
  bool mod = name == "truncmod";
  if (a[0].isConstant() && a[1].isConstant()) {
    int64_t x = toConstInt(a[0], call.loc, "T." + name + " argument");
    int64_t y = toConstInt(a[1], call.loc, "T." + name + " argument");
    if (y == 0) fail(call.loc, fmt::format("integer division by zero in T.{}", name));
    return Value::integer(mod ? x % y : x / y);
  }
  auto [x, y] = unifyOperands(a[0], argLoc(call, 0), a[1], argLoc(call, 1));
  if (isFloat(x->dtype) || isFloat(y->dtype))
    fail(call.loc, fmt::format("T.{} takes integers", name));
  Expr zero = intImm(0, x->dtype);
  Expr r = floormod(x, y);
  // The signs differ: with a constant divisor (the usual case), a test of x alone.
  auto cy = asConstInt(y);
  Expr signsDiffer =
      cy ? binary(*cy > 0 ? BinOp::LT : BinOp::GE, x, zero)
         : binary(BinOp::NE, binary(BinOp::LT, x, zero), binary(BinOp::LT, y, intImm(0, y->dtype)));
  Expr differ = binary(BinOp::And, binary(BinOp::NE, r, zero), signsDiffer);
  return Value::irExpr(
      mod ? select(differ, sub(r, y), r)
          : select(differ, add(floordiv(x, y), intImm(1, x->dtype)), floordiv(x, y)));
}

// The T functions with a value, for "did you mean" suggestions.
constexpr const char* kValueFunctions[] = {
    "alloc_shared",   "alloc_ub",     "alloc_l1",      "alloc_l0a",     "alloc_l0b", "alloc_l0c",
    "alloc_fragment", "alloc_local",  "alloc_var",     "alloc_reducer", "view",      "reshape",
    "cast",           "exp",          "log",           "sqrt",          "rsqrt",     "tanh",
    "sigmoid",        "abs",          "max",           "min",           "ceildiv",   "truncdiv",
    "truncmod",       "if_then_else", "Select",        "infinity",      "clamp",     "max_value",
    "min_value",      "Tensor",       "StridedTensor", "Buffer",        "dynamic",   "assume",
    "macro",          "prim_func",    "float32",       "float16",       "bfloat16",  "int32",
    "int8",           "bool"};

Value Elaborator::callDialect(const std::string& name, const py::Expr& call, Env& env) {
  auto args = [&] { return positional(call, env); };
  auto arity = [&](const std::vector<Value>& a, size_t n) { checkDialectArity(name, call, a, n); };
  static const std::map<std::string, UnOp> kUnary = {
      {"exp", UnOp::Exp},     {"log", UnOp::Log},   {"sqrt", UnOp::Sqrt},
      {"rsqrt", UnOp::Rsqrt}, {"tanh", UnOp::Tanh}, {"sigmoid", UnOp::Sigmoid},
      {"abs", UnOp::Abs}};
  if (auto it = kUnary.find(name); it != kUnary.end()) {
    checkKeywords(call, "T." + name, {});
    auto a = args();
    arity(a, 1);
    Expr x = toExpr(a[0], call.loc);
    rejectFloat8Compute({x}, call.loc, "T." + name);
    if (it->second != UnOp::Abs && !isFloat(x->dtype)) x = cast(DType::Float32, x);
    return Value::irExpr(unary(it->second, x));
  }
  if (name == "min" || name == "max") {
    checkKeywords(call, "T." + name, {});
    auto a = args();
    arity(a, 2);
    if (a[0].isConstant() && a[1].isConstant())
      return constCompare(name == "min" ? "<=" : ">=", a[0], a[1], call.loc) ? a[0] : a[1];
    auto [x, y] = unifyOperands(a[0], call.loc, a[1], call.loc);
    rejectFloat8Compute({x, y}, call.loc, "T." + name);
    return Value::irExpr(binary(name == "min" ? BinOp::Min : BinOp::Max, x, y));
  }
  if (name == "clamp") return dialectClamp(call, env);
  if (name == "get_thread_binding") return threadBinding(call, env);
  if (name == "bind") {
    // T.bind(e): evaluate e once, here, and name the result; a plain name
    // bound to a value already takes it at this point (docs/language.md).
    checkKeywords(call, "T.bind", {});
    auto a = args();
    arity(a, 1);
    if (a[0].kind == K::Buffer && a[0].buffer->storage->scope != MemScope::LocalVar)
      fail(argLoc(call, 0), "T.bind takes a scalar value, not a buffer");
    // A T.alloc_var is read now (a snapshot, never an alias of the variable).
    if (a[0].kind == K::Buffer) return Value::irExpr(load(a[0].buffer, {intImm(0)}));
    return a[0];
  }
  if (name == "ceildiv") {
    auto a = args();
    arity(a, 2);
    if (a[0].isConstant() && a[1].isConstant()) {
      int64_t x = toConstInt(a[0], call.loc, "T.ceildiv argument");
      int64_t y = toConstInt(a[1], call.loc, "T.ceildiv argument");
      if (y == 0) fail(call.loc, "integer division by zero in T.ceildiv");
      return Value::integer(-floorDiv(-x, y));
    }
    Value num = binaryOp("+", a[0], binaryOp("-", a[1], Value::integer(1), call.loc), call.loc);
    return binaryOp("//", num, a[1], call.loc);
  }
  if (name == "truncdiv" || name == "truncmod") return dialectTruncated(name, call, env);
  if (name == "if_then_else" || name == "Select") {
    auto a = args();
    arity(a, 3);
    if (a[0].isConstant()) return truthy(a[0], call.loc) ? a[1] : a[2];
    auto [x, y] = unifyOperands(a[1], call.loc, a[2], call.loc);
    return Value::irExpr(select(toExpr(a[0], call.loc), x, y));
  }
  if (name == "cast" || name == "Cast") {
    // T.cast(x, dtype); T.Cast(dtype, x) is TVM's spelling with the operands swapped.
    checkKeywords(call, "T." + name, {});
    auto a = args();
    arity(a, 2);
    size_t xi = name == "cast" ? 0 : 1, ti = 1 - xi;
    DType t = toDType(a[ti], argLoc(call, ti));
    if (a[xi].isNumber()) return Value::irExpr(cast(t, toExpr(a[xi], call.loc, t)));
    return Value::irExpr(cast(t, toExpr(a[xi], call.loc)));
  }
  if (name == "infinity") {
    auto a = args();
    arity(a, 1);
    return Value::irExpr(floatImm(INFINITY, toDType(a[0], call.loc)));
  }
  if (name == "max_value" || name == "min_value") return dialectLimit(name, call, env);
  if (name == "dynamic") return dialectDynamic(call, env);
  if (name == "Tensor" || name == "Buffer") return dialectTensor(name, call, env);
  if (name == "StridedTensor") return dialectStridedTensor(call, env);
  // Before `with T.Kernel` an assignment is evaluated as a value: a view of a
  // parameter there is named by the assignment's target.
  if ((name == "view" || name == "reshape") && kernel_ && !simdNameHint_.empty())
    return viewOf(name, call, env, simdNameHint_);
  if (name.rfind("alloc_", 0) == 0 || name == "view" || name == "reshape")
    fail(call.loc, fmt::format("T.{}() must be assigned to a name: 'buf = T.{}(...)'", name, name));
  if (name.rfind("simd.", 0) == 0) return callSimd(name.substr(5), call, env);
  for (const char* u : kUnsupportedDialect)
    if (name == u || name.rfind(std::string(u) + ".", 0) == 0)
      fail(call.loc, fmt::format("T.{} is not supported yet", name));
  static const std::set<std::string> kLoops = {"serial",   "Serial",     "Pipelined", "Unroll",
                                               "Parallel", "Persistent", "unroll"};
  if (kLoops.count(name))
    fail(call.loc, fmt::format("T.{}(...) can only be the iterable of a 'for' loop", name));
  static const std::set<std::string> kWith = {"Kernel", "SimtVF", "SimdVF",
                                              "Stage",  "Cube",   "Vector"};
  if (kWith.count(name))
    fail(call.loc, fmt::format("T.{}(...) can only be used in a 'with' statement", name));
  static const std::set<std::string> kStatements = {"copy",
                                                    "gemm",
                                                    "fill",
                                                    "clear",
                                                    "reduce_sum",
                                                    "reduce_max",
                                                    "reduce_min",
                                                    "reduce_abssum",
                                                    "reduce_absmax",
                                                    "set_flag",
                                                    "wait_flag",
                                                    "pipe_barrier",
                                                    "barrier_all",
                                                    "ascend_pipe_barrier",
                                                    "ascend_get_buf",
                                                    "ascend_rls_buf",
                                                    "ascend_set_flag",
                                                    "ascend_cross_core_set_flag",
                                                    "ascend_cross_core_wait_flag",
                                                    "ascend_sync_inter_arrive",
                                                    "ascend_sync_inter_wait",
                                                    "dual_copy",
                                                    "ascend_wait_flag",
                                                    "annotate_buffer_versions",
                                                    "annotate_manual_multi_buffer",
                                                    "annotate_unlimit_memory",
                                                    "set_atomic",
                                                    "set_atomic_none",
                                                    "finalize_reducer",
                                                    "assume_conflict",
                                                    "assume_no_conflict",
                                                    "annotate_layout",
                                                    "set_hf32_mode",
                                                    "print",
                                                    "atomic_add",
                                                    "atomic_max",
                                                    "atomic_min",
                                                    "ascend_set_copy_pad_value"};
  if (name.rfind("atomic_", 0) == 0 && kStatements.count(name) && kernel_ && currentCtx_)
    return Value::irExpr(elabAtomicUpdate(name, call, env, *currentCtx_, /*wantPrev=*/true));
  if (kStatements.count(name))
    fail(call.loc, fmt::format("T.{}(...) is a statement and has no value", name));
  // A typo of a name the dialect has: say which one.
  std::vector<std::string> known(kStatements.begin(), kStatements.end());
  known.insert(known.end(), kLoops.begin(), kLoops.end());
  known.insert(known.end(), kWith.begin(), kWith.end());
  for (const char* n : kValueFunctions) known.push_back(n);
  std::string suggestion = nearestName(name, known);
  fail(call.loc,
       fmt::format("unknown function T.{}; it is not in the TileLang subset tilesched supports{}",
                   name, suggestion.empty() ? "" : "; did you mean T." + suggestion + "?"));
}

}  // namespace tilesched::frontend
