// Values of the front end's compile-time evaluation.
//
// A kernel file is never run; the front end evaluates what it must: module and
// factory constants (Python semantics) and, while building a kernel, the
// expressions of the kernel body, whose values may be IR expressions, buffers
// or buffer accesses. One Value type covers both so a macro argument or a
// factory constant flows into the kernel unchanged.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/Ast.h"
#include "ir/IR.h"

namespace tilesched::frontend {

struct Env;

// Set on a binding a kernel scope (loop body, branch, VF region) ended: the
// name either has its value from before the scope again (`ended` false; a read
// warns, since the author probably wanted a running value) or was bound only
// inside the scope and is no longer defined (`ended` true; a read is an error).
struct ScopeNote {
  bool ended = false;
  SourceLoc boundAt;   // the assignment inside the scope
  std::string scope;   // "loop", "branch", "T.SimdVF region", ...
  SourceLoc scopeLoc;  // the statement that opened the scope
};

// One index of a subscript on a buffer: a point or a slice.
struct AccessIndex {
  bool isSlice = false;
  ir::Expr start;  // point index, or slice start (null = from 0)
  ir::Expr stop;   // slice stop (null = to the end)
  SourceLoc loc;
};

struct Value {
  enum class Kind {
    None,
    Bool,
    Int,
    Float,
    Str,
    DType,
    Tuple,
    List,
    Dict,
    Expr,       // an IR expression that is not a compile-time constant
    Buffer,     // a whole buffer
    Access,     // buffer[...] with points and/or slices
    Function,   // a `def` (factory, macro, prim_func, helper)
    Module,     // the dialect namespace `T` (s = "T") or `tilelang`
    DialectFn,  // T.<name>, s = name
    Opaque,     // something we do not model (torch, jit decorators); s = spelling
    Undefined,  // a name whose value could not be evaluated; s = why
  };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<Value> elts;                     // Tuple/List; Dict keys then values
  std::vector<std::pair<Value, Value>> items;  // Dict
  ir::Expr expr;
  ir::Buffer buffer;
  std::vector<AccessIndex> access;  // Access
  const py::Stmt* def = nullptr;    // Function
  std::shared_ptr<Env> closure;     // Function
  SourceLoc loc;                    // where it was made, for messages
  // Which binding of a name this is (set by Env::bind), so a kernel scope can
  // tell the names its body re-bound from the ones it left alone.
  uint64_t serial = 0;
  SourceLoc boundAt;                           // the kernel assignment that bound it, if any
  std::shared_ptr<const ScopeNote> scopeNote;  // see ScopeNote

  // Declared out of line: clang with libstdc++ rejects the implicit
  // constructor of a vector<pair<Value, Value>> member of incomplete Value.
  Value();
  static Value none() { return Value{}; }
  static Value boolean(bool v) {
    Value x;
    x.kind = Kind::Bool;
    x.b = v;
    return x;
  }
  static Value integer(int64_t v) {
    Value x;
    x.kind = Kind::Int;
    x.i = v;
    return x;
  }
  static Value floating(double v) {
    Value x;
    x.kind = Kind::Float;
    x.f = v;
    return x;
  }
  static Value str(std::string v) {
    Value x;
    x.kind = Kind::Str;
    x.s = std::move(v);
    return x;
  }
  static Value dtype(ir::DType t) {
    Value x;
    x.kind = Kind::DType;
    x.s = std::string(ir::dtypeName(t));
    return x;
  }
  static Value tuple(std::vector<Value> v) {
    Value x;
    x.kind = Kind::Tuple;
    x.elts = std::move(v);
    return x;
  }
  static Value list(std::vector<Value> v) {
    Value x;
    x.kind = Kind::List;
    x.elts = std::move(v);
    return x;
  }
  static Value irExpr(ir::Expr e) {
    Value x;
    x.kind = Kind::Expr;
    x.expr = std::move(e);
    return x;
  }
  static Value buf(ir::Buffer b) {
    Value x;
    x.kind = Kind::Buffer;
    x.buffer = std::move(b);
    return x;
  }
  static Value opaque(std::string what) {
    Value x;
    x.kind = Kind::Opaque;
    x.s = std::move(what);
    return x;
  }
  static Value undefined(std::string why, SourceLoc at) {
    Value x;
    x.kind = Kind::Undefined;
    x.s = std::move(why);
    x.loc = at;
    return x;
  }
  static Value dialect(std::string name) {
    Value x;
    x.kind = Kind::DialectFn;
    x.s = std::move(name);
    return x;
  }
  static Value module(std::string name) {
    Value x;
    x.kind = Kind::Module;
    x.s = std::move(name);
    return x;
  }

  bool isNumber() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool isConstant() const {
    return kind == Kind::None || isNumber() || kind == Kind::Str || kind == Kind::DType ||
           ((kind == Kind::Tuple || kind == Kind::List) && allConstant());
  }
  bool isSequence() const { return kind == Kind::Tuple || kind == Kind::List; }
  bool allConstant() const {
    for (const auto& e : elts)
      if (!e.isConstant()) return false;
    return true;
  }
};

inline Value::Value() = default;

// A scope of names. Factories and macros capture their defining scope by
// reference (Python's late binding).
struct Env {
  std::map<std::string, Value> names;
  std::shared_ptr<Env> parent;

  const Value* lookup(const std::string& n) const {
    for (const Env* e = this; e; e = e->parent.get()) {
      auto it = e->names.find(n);
      if (it != e->names.end()) return &it->second;
    }
    return nullptr;
  }
  void bind(const std::string& n, Value v, SourceLoc at = {}) {
    static uint64_t nextSerial = 0;
    v.serial = ++nextSerial;
    v.boundAt = at;
    v.scopeNote.reset();
    names[n] = std::move(v);
  }
};

// Value::undefined's reason for a name whose assignment failed with an error:
// reading it throws an EvalError with an empty message, which is not reported.
inline constexpr const char* kFailedBinding = "its assignment failed (see the error there)";

// An error raised while evaluating; turned into a diagnostic by the caller,
// which decides whether it matters (kernel code) or not (test code). An empty
// message stands for an error already reported.
struct EvalError {
  SourceLoc loc;
  std::string message;
};

}  // namespace tilesched::frontend
