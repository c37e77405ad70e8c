#include "frontend/ConstEval.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ir/IROperator.h"

namespace tilesched::frontend {

namespace {

using K = Value::Kind;

[[noreturn]] void fail(SourceLoc loc, std::string msg) { throw EvalError{loc, std::move(msg)}; }

double asDouble(const Value& v) {
  if (v.kind == K::Float) return v.f;
  if (v.kind == K::Bool) return v.b ? 1 : 0;
  return static_cast<double>(v.i);
}

int64_t asInt(const Value& v) { return v.kind == K::Bool ? (v.b ? 1 : 0) : v.i; }

bool isIntLike(const Value& v) { return v.kind == K::Int || v.kind == K::Bool; }

// Strings and dtypes compare as their spelling, so `dtype == "float16"` works
// whether dtype came from `T.float16` or from a string.
bool isText(const Value& v) { return v.kind == K::Str || v.kind == K::DType; }

[[noreturn]] void badOperands(const std::string& op, const Value& a, const Value& b,
                              SourceLoc loc) {
  fail(loc, fmt::format("unsupported operand type(s) for {}: '{}' and '{}'", op, typeName(a),
                        typeName(b)));
}

Value intResult(bool ok, int64_t r, SourceLoc loc) {
  if (!ok)
    fail(loc, "integer overflow in constant expression (tilesched evaluates with 64-bit ints)");
  return Value::integer(r);
}

Value intPow(int64_t base, int64_t exp, SourceLoc loc) {
  // Exponentiation by squaring; every product is overflow-checked.
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1) {
      if (__builtin_mul_overflow(result, base, &result)) return intResult(false, 0, loc);
    }
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(base, base, &base)) return intResult(false, 0, loc);
  }
  return Value::integer(result);
}

// Sequences and strings built at compile time stay small.
constexpr int64_t kMaxConstantLength = 1000000;

Value sequenceOp(const std::string& op, const Value& a, const Value& b, SourceLoc loc) {
  if (op == "+" && a.kind == b.kind) {
    Value out = a;
    out.elts.insert(out.elts.end(), b.elts.begin(), b.elts.end());
    return out;
  }
  if (op == "*" && isIntLike(b)) {
    Value out = a;
    out.elts.clear();
    int64_t n = asInt(b);
    if (n > 0 && !a.elts.empty() && n > kMaxConstantLength / static_cast<int64_t>(a.elts.size()))
      fail(loc, fmt::format("sequence repetition is too large (at most {} elements)",
                            kMaxConstantLength));
    if (a.elts.empty()) n = 0;
    for (int64_t i = 0; i < n; ++i) out.elts.insert(out.elts.end(), a.elts.begin(), a.elts.end());
    return out;
  }
  badOperands(op, a, b, loc);
}

}  // namespace

std::string typeName(const Value& v) {
  switch (v.kind) {
    case K::None:
      return "NoneType";
    case K::Bool:
      return "bool";
    case K::Int:
      return "int";
    case K::Float:
      return "float";
    case K::Str:
      return "str";
    case K::DType:
      return "dtype";
    case K::Tuple:
      return "tuple";
    case K::List:
      return "list";
    case K::Dict:
      return "dict";
    case K::Expr:
      return "expression";
    case K::Buffer:
      return "buffer";
    case K::Access:
      return "buffer access";
    case K::Function:
      return "function";
    case K::Module:
      return "module";
    case K::DialectFn:
      return "function";
    case K::Opaque:
      return "object";
    case K::Undefined:
      return "undefined";
  }
  return "object";
}

std::string floatRepr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string pyRepr(const Value& v) {
  if (v.kind != K::Str) return pyStr(v);
  // CPython's choice of quotes and escapes.
  char quote =
      v.s.find('\'') != std::string::npos && v.s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, quote);
  for (char ch : v.s) {
    auto c = static_cast<unsigned char>(ch);
    if (ch == quote || ch == '\\')
      out += '\\', out += ch;
    else if (ch == '\n')
      out += "\\n";
    else if (ch == '\t')
      out += "\\t";
    else if (ch == '\r')
      out += "\\r";
    else if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += ch;
  }
  return out + quote;
}

std::string pyStr(const Value& v) {
  switch (v.kind) {
    case K::None:
      return "None";
    case K::Bool:
      return v.b ? "True" : "False";
    case K::Int:
      return std::to_string(v.i);
    case K::Float:
      return floatRepr(v.f);
    case K::Str:
    case K::DType:
      return v.s;
    case K::Tuple:
    case K::List: {
      std::string out = v.kind == K::Tuple ? "(" : "[";
      for (size_t i = 0; i < v.elts.size(); ++i) out += (i ? ", " : "") + pyRepr(v.elts[i]);
      if (v.kind == K::Tuple && v.elts.size() == 1) out += ",";
      return out + (v.kind == K::Tuple ? ")" : "]");
    }
    case K::Dict: {
      std::string out = "{";
      for (size_t i = 0; i < v.items.size(); ++i)
        out += (i ? ", " : "") + pyRepr(v.items[i].first) + ": " + pyRepr(v.items[i].second);
      return out + "}";
    }
    case K::Buffer:
      return v.buffer ? v.buffer->name : "<buffer>";
    case K::Opaque:
      return v.s;
    default:
      return "<" + typeName(v) + ">";
  }
}

std::string pyFormat(const Value& v, const std::string& spec) {
  if (spec.empty()) return pyStr(v);
  // [[fill]align][sign][width][,][.precision][type]
  size_t pos = 0;
  char fill = ' ', align = 0;
  if (spec.size() >= 2 && (spec[1] == '<' || spec[1] == '>' || spec[1] == '^')) {
    fill = spec[0];
    align = spec[1];
    pos = 2;
  } else if (!spec.empty() && (spec[0] == '<' || spec[0] == '>' || spec[0] == '^')) {
    align = spec[0];
    pos = 1;
  }
  if (pos < spec.size() && spec[pos] == '0' && !align) {
    fill = '0';
    align = '>';
  }
  size_t width = 0;
  while (pos < spec.size() && std::isdigit(static_cast<unsigned char>(spec[pos])) && width < 100000)
    width = width * 10 + (spec[pos++] - '0');
  width = std::min<size_t>(width, 10000);
  if (pos < spec.size() && spec[pos] == ',') ++pos;
  int precision = -1;
  if (pos < spec.size() && spec[pos] == '.') {
    precision = 0;
    ++pos;
    while (pos < spec.size() && std::isdigit(static_cast<unsigned char>(spec[pos])) &&
           precision < 100000)
      precision = precision * 10 + (spec[pos++] - '0');
    precision = std::min(precision, 100);
  }
  char type = pos < spec.size() ? spec[pos] : 0;
  std::string body;
  if (v.isNumber() && (type == 'f' || type == 'e' || type == 'g' || type == '%' ||
                       (precision >= 0 && type == 0 && v.kind == K::Float))) {
    double d = asDouble(v) * (type == '%' ? 100 : 1);
    int p = precision < 0 ? 6 : precision;
    char t = type == '%' ? 'f' : (type == 0 ? 'g' : type);
    body = fmt::format(fmt::runtime(fmt::format("{{:.{}{}}}", p, t)), d);
    if (type == '%') body += "%";
  } else if (isIntLike(v) && type == 'x') {
    body = fmt::format("{:x}", asInt(v));
  } else {
    body = pyStr(v);
  }
  if (!align) align = v.isNumber() ? '>' : '<';
  if (body.size() >= width) return body;
  size_t pad = width - body.size();
  if (align == '<') return body + std::string(pad, fill);
  if (align == '>') return std::string(pad, fill) + body;
  return std::string(pad / 2, fill) + body + std::string(pad - pad / 2, fill);
}

bool valuesEqual(const Value& a, const Value& b) {
  if (a.isNumber() && b.isNumber()) {
    if (isIntLike(a) && isIntLike(b)) return asInt(a) == asInt(b);
    return asDouble(a) == asDouble(b);
  }
  if (isText(a) && isText(b)) return a.s == b.s;
  if (a.kind == K::None || b.kind == K::None) return a.kind == b.kind;
  if (a.isSequence() && a.kind == b.kind) {
    if (a.elts.size() != b.elts.size()) return false;
    for (size_t i = 0; i < a.elts.size(); ++i)
      if (!valuesEqual(a.elts[i], b.elts[i])) return false;
    return true;
  }
  if (a.kind == K::Buffer && b.kind == K::Buffer) return a.buffer == b.buffer;
  return false;
}

bool truthy(const Value& v, SourceLoc loc) {
  switch (v.kind) {
    case K::None:
      return false;
    case K::Bool:
      return v.b;
    case K::Int:
      return v.i != 0;
    case K::Float:
      return v.f != 0;
    case K::Str:
      return !v.s.empty();
    case K::DType:
      return true;
    case K::Tuple:
    case K::List:
      return !v.elts.empty();
    case K::Dict:
      return !v.items.empty();
    case K::Buffer:
      // A T.alloc_var scalar holds a run-time value; callers that may see one
      // build a run-time test instead of asking here.
      if (v.buffer->storage->scope == MemScope::LocalVar)
        fail(loc, fmt::format("the truth value of T.alloc_var '{}' is only known at run time",
                              v.buffer->name));
      return true;
    case K::Function:
    case K::Module:
    case K::DialectFn:
      return true;
    case K::Expr:
    case K::Access:
      fail(loc, "the truth value of a run-time value is only known at run time");
    default:
      fail(loc, fmt::format("the truth value of a {} is not known at compile time", typeName(v)));
  }
}

Value constBinary(const std::string& op, const Value& a, const Value& b, SourceLoc loc) {
  if (a.isNumber() && b.isNumber()) {
    if (isIntLike(a) && isIntLike(b)) {
      int64_t x = asInt(a), y = asInt(b), r = 0;
      // The overflow check must run before `r` is read: argument order is unspecified.
      bool ok = true;
      if (op == "+") return ok = !__builtin_add_overflow(x, y, &r), intResult(ok, r, loc);
      if (op == "-") return ok = !__builtin_sub_overflow(x, y, &r), intResult(ok, r, loc);
      if (op == "*") return ok = !__builtin_mul_overflow(x, y, &r), intResult(ok, r, loc);
      if (op == "//" || op == "%") {
        if (y == 0) fail(loc, op == "//" ? "integer division by zero" : "integer modulo by zero");
        if (x == std::numeric_limits<int64_t>::min() && y == -1) intResult(false, 0, loc);
        return Value::integer(op == "//" ? ir::floorDiv(x, y) : ir::floorMod(x, y));
      }
      if (op == "/") {
        if (y == 0) fail(loc, "division by zero");
        return Value::floating(static_cast<double>(x) / static_cast<double>(y));
      }
      if (op == "**") {
        if (y < 0) return Value::floating(std::pow(static_cast<double>(x), static_cast<double>(y)));
        return intPow(x, y, loc);
      }
      if (op == "<<" || op == ">>") {
        if (y < 0) fail(loc, "negative shift count");
        if (op == ">>") return Value::integer(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
        if (y >= 63 || (x != 0 && (x > (INT64_MAX >> y) || x < (INT64_MIN >> y))))
          intResult(false, 0, loc);
        return Value::integer(static_cast<int64_t>(static_cast<uint64_t>(x) << y));
      }
      if (op == "&") return Value::integer(x & y);
      if (op == "|") return Value::integer(x | y);
      if (op == "^") return Value::integer(x ^ y);
      badOperands(op, a, b, loc);
    }
    double x = asDouble(a), y = asDouble(b);
    if (op == "+") return Value::floating(x + y);
    if (op == "-") return Value::floating(x - y);
    if (op == "*") return Value::floating(x * y);
    if (op == "/") {
      if (y == 0) fail(loc, "float division by zero");
      return Value::floating(x / y);
    }
    if (op == "//" || op == "%") {
      if (y == 0) fail(loc, "float floor division by zero");
      double q = std::floor(x / y);
      return Value::floating(op == "//" ? q : x - q * y);
    }
    if (op == "**") return Value::floating(std::pow(x, y));
    badOperands(op, a, b, loc);
  }
  if (isText(a) && isText(b) && op == "+") return Value::str(a.s + b.s);
  if (a.kind == K::Str && isIntLike(b) && op == "*") {
    int64_t n = a.s.empty() ? 0 : asInt(b);
    if (n > 0 && n > kMaxConstantLength / static_cast<int64_t>(a.s.size()))
      fail(loc, fmt::format("string repetition is too large (at most {} characters)",
                            kMaxConstantLength));
    std::string out;
    for (int64_t i = 0; i < n; ++i) out += a.s;
    return Value::str(out);
  }
  if (a.kind == K::Str && op == "%") return Value::str(a.s);  // printf-style: message text only
  if (a.isSequence()) return sequenceOp(op, a, b, loc);
  if (op == "*" && isIntLike(a) && (b.isSequence() || b.kind == K::Str))
    return constBinary(op, b, a, loc);
  badOperands(op, a, b, loc);
}

Value constUnary(const std::string& op, const Value& a, SourceLoc loc) {
  if (op == "not") return Value::boolean(!truthy(a, loc));
  if (!a.isNumber()) fail(loc, fmt::format("bad operand type for unary {}: '{}'", op, typeName(a)));
  if (op == "+") return isIntLike(a) ? Value::integer(asInt(a)) : a;
  if (op == "-") {
    if (isIntLike(a)) {
      if (asInt(a) == std::numeric_limits<int64_t>::min()) intResult(false, 0, loc);
      return Value::integer(-asInt(a));
    }
    return Value::floating(-a.f);
  }
  if (op == "~" && isIntLike(a)) return Value::integer(~asInt(a));
  fail(loc, fmt::format("bad operand type for unary {}: '{}'", op, typeName(a)));
}

bool constCompare(const std::string& op, const Value& a, const Value& b, SourceLoc loc) {
  if (op == "==" || op == "is") return valuesEqual(a, b);
  if (op == "!=" || op == "is not") return !valuesEqual(a, b);
  if (op == "in" || op == "not in") {
    bool found = false;
    if (b.isSequence()) {
      for (const auto& e : b.elts) found |= valuesEqual(a, e);
    } else if (b.kind == K::Dict) {
      for (const auto& [k, v] : b.items) found |= valuesEqual(a, k);
    } else if (isText(b) && isText(a)) {
      found = b.s.find(a.s) != std::string::npos;
    } else {
      fail(loc, fmt::format("argument of type '{}' is not iterable", typeName(b)));
    }
    return op == "in" ? found : !found;
  }
  int cmp = 0;
  if (a.isNumber() && b.isNumber()) {
    if (isIntLike(a) && isIntLike(b))
      cmp = asInt(a) < asInt(b) ? -1 : (asInt(a) > asInt(b) ? 1 : 0);
    else
      cmp = asDouble(a) < asDouble(b) ? -1 : (asDouble(a) > asDouble(b) ? 1 : 0);
  } else if (isText(a) && isText(b)) {
    cmp = a.s.compare(b.s);
  } else if (a.isSequence() && b.isSequence() && a.kind == b.kind) {
    // Lexicographic, as Python orders tuples and lists: the first unequal pair decides.
    size_t n = std::min(a.elts.size(), b.elts.size()), i = 0;
    while (i < n && valuesEqual(a.elts[i], b.elts[i])) ++i;
    if (i < n) return constCompare(op, a.elts[i], b.elts[i], loc);
    cmp = a.elts.size() < b.elts.size() ? -1 : (a.elts.size() > b.elts.size() ? 1 : 0);
  } else {
    fail(loc, fmt::format("'{}' not supported between instances of '{}' and '{}'", op, typeName(a),
                          typeName(b)));
  }
  if (op == "<") return cmp < 0;
  if (op == "<=") return cmp <= 0;
  if (op == ">") return cmp > 0;
  if (op == ">=") return cmp >= 0;
  fail(loc, fmt::format("unsupported comparison '{}'", op));
}

}  // namespace tilesched::frontend
