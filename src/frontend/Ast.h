// Python syntax tree for kernel files.
//
// The front end never runs Python. The parser turns a whole file into this
// tree: the subset that kernels and factories use is parsed in full; any
// statement it cannot parse becomes a `Stmt::Unparsed` that covers the header
// line and its indented block, carrying the reason. Whether that is an error
// is decided later by whoever needs the statement (the elaborator errors on an
// unparsed statement inside a kernel, and silently skips test code).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/Diagnostics.h"

namespace tilesched::py {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

enum class ExprKind {
  Name,   // id
  Int,    // intValue. A literal above INT64_MAX never becomes an Int:
          // its statement is Unparsed ("integer literal is too large ...").
  Float,  // floatValue (also imaginary literals, flagged by `imaginary`)
  Str,    // strValue (after escape processing; bytes literals too)
  FStr,   // fstrParts
  Bool,   // boolValue
  None,
  Ellipsis,
  Tuple,          // elts (parenthesised or bare `a, b`)
  List,           // elts
  Dict,           // keys/values (a `**x` entry has a null key)
  Set,            // elts
  Attribute,      // value.attr   (value in `lhs`, attr in `id`)
  Subscript,      // value[index] (value in `lhs`, index in `rhs`; several indices
                  //               `a[i, j]` are one Tuple index)
  Slice,          // lower:upper:step, each may be null (lhs, rhs, step)
  Call,           // func(args..., name=value..., *a, **k)  func in `lhs`
  BinOp,          // lhs op rhs, op in `op` ("+", "-", "*", "/", "//", "%", "**",
                  //                        "<<", ">>", "&", "|", "^", "@")
  UnaryOp,        // op operand: op "-", "+", "~", "not"; operand in `lhs`
  Compare,        // lhs op0 c0 op1 c1 ...: first operand in `lhs`, ops in
                  // `compareOps` ("<", "<=", ">", ">=", "==", "!=", "in",
                  // "not in", "is", "is not"), comparators in `elts`
  BoolOp,         // op "and" / "or" over `elts` (2 or more)
  IfExp,          // body if test else orelse: lhs=body, rhs=test, step=orelse
  Starred,        // *value (value in lhs)
  Lambda,         // parsed for skipping only; body in lhs, params in `params`
  Comprehension,  // [elt for ...] / (... for ...) / {...}: kept opaque
};

// A keyword argument `name=value` (name empty for `**value`).
struct Keyword {
  std::string name;
  ExprPtr value;
  SourceLoc loc;
};

// One piece of an f-string: literal text, or a replacement field.
struct FStrPart {
  std::string literal;     // used when expr is null
  ExprPtr expr;            // replacement field `{expr!conv:spec}`
  char conversion = 0;     // 'r', 's', 'a' or 0
  std::string formatSpec;  // raw spec text after ':' (nested fields kept as text)
};

// A function parameter: `name`, `name: ann`, `name=default`, `*args`, `**kw`.
// Defined before Expr: Expr holds a vector<Param>, which must be complete
// there (clang rejects the incomplete type; GCC happens to accept it).
struct Param {
  std::string name;
  ExprPtr annotation;
  ExprPtr defaultValue;
  bool varArgs = false;    // *args
  bool varKwargs = false;  // **kwargs
  // The bare markers `/` and `*` are not Params; they set these flags on the
  // parameters before `/` and after `*` (or `*args`).
  bool positionalOnly = false;
  bool keywordOnly = false;
  SourceLoc loc;
};

// Adjacent string literals are concatenated into one Str (or one FStr when
// any piece is an f-string, its literal text merged into the parts). A
// parenthesised expression is the inner node itself (a parenthesised tuple's
// loc is its '('). The parser bounds tree height (see Parser.h), so
// recursive visitors are safe.
struct Expr {
  ExprKind kind;
  SourceLoc loc;  // first character of the expression

  std::string id;  // Name id, Attribute attr, operator spelling
  int64_t intValue = 0;
  double floatValue = 0;
  bool imaginary = false;
  bool boolValue = false;
  std::string strValue;
  std::vector<FStrPart> fstrParts;

  ExprPtr lhs, rhs, step;
  std::vector<ExprPtr> elts;      // Tuple/List/Set elements, Call positional
                                  // args, Compare comparators, BoolOp values
  std::vector<ExprPtr> keys;      // Dict keys (null for `**x`)
  std::vector<ExprPtr> values;    // Dict values
  std::vector<Keyword> keywords;  // Call keyword arguments
  std::vector<std::string> compareOps;
  std::vector<Param> params;  // Lambda parameters

  explicit Expr(ExprKind k, SourceLoc l = {}) : kind(k), loc(l) {}
};

struct WithItem {
  ExprPtr context;
  ExprPtr target;  // `as` target, may be null
};

enum class StmtKind {
  Expr,         // value
  Assign,       // targets (a = b = value): targets, value
  AugAssign,    // target op= value: targets[0], op, value
  AnnAssign,    // target: annotation [= value]: targets[0], annotation, value
  For,          // for target in iter: body else: orelse
  While,        // while test: body else: orelse
  If,           // if test: body elif/else: orelse (an elif is a nested If)
  With,         // with items: body
  FunctionDef,  // def name(params) -> returns: body, with decorators
  ClassDef,     // class name(bases): body  (bases are parsed, then dropped)
  Return,       // return [value]
  Pass,
  Break,
  Continue,
  Assert,    // assert test[, msg]: test=value, msg=annotation
  Raise,     // raise [value] (the cause of `raise X from Y` is dropped)
  Import,    // import x / from x import y: names in `importNames`
             //   ("tilelang.ascend.language as T" → module + alias),
             //   `fromImport` tells the two forms apart
  Global,    // global/nonlocal names (ignored): Name exprs in `targets`
  Delete,    // del t1, t2: targets
  Unparsed,  // a statement the parser could not handle; see `reason`
};

struct ImportName {
  std::string module;  // dotted module ("tilelang.language") or, for
                       // `from m import n`, "m.n" (relative: `from . import n`
                       // → ".n", `from .m import n` → ".m.n"; `*` → "m.*")
  std::string alias;   // `as` name; empty when none
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;     // first character of the statement (a decorated def/class:
                     // its first '@')
  SourceLoc endLoc;  // line/col just past the last token of the statement
                     // (of its block's last statement for compound ones)

  std::vector<ExprPtr> targets;
  ExprPtr value;
  ExprPtr annotation;
  std::string op;  // AugAssign operator without '=' ("+", "//", ...)
  ExprPtr iter;    // For iterable, While/If test
  StmtList body;
  StmtList orelse;
  std::vector<WithItem> withItems;

  std::string name;                 // FunctionDef/ClassDef name
  std::vector<Param> params;        // FunctionDef parameters
  std::vector<ExprPtr> decorators;  // FunctionDef/ClassDef decorators
  ExprPtr returns;                  // FunctionDef return annotation

  std::vector<ImportName> importNames;
  bool fromImport = false;  // Import: `from m import ...` form

  std::string reason;   // Unparsed: why (e.g. "'try' statements are not supported")
  SourceLoc reasonLoc;  // Unparsed: where the problem is
  // Unparsed `try`: its body and the first `except` clause's body are parsed
  // (module and factory code run them for `try: import ... except ImportError:`).
  bool isTry = false;
  StmtList tryElse, tryFinally;  // a `try`'s else: and finally: bodies

  explicit Stmt(StmtKind k, SourceLoc l = {}) : kind(k), loc(l) {}
};

struct Module {
  StmtList body;
};

}  // namespace tilesched::py
