// Parser tests. Trees are compared through a compact S-expression dump so a
// wrong shape shows up as a readable diff.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include "frontend/Lexer.h"
#include "frontend/Parser.h"

using namespace tilesched;
using namespace tilesched::py;

namespace {

std::string dump(const Expr* e);

std::string dumpList(const std::vector<ExprPtr>& list) {
  std::string out;
  for (const ExprPtr& e : list) out += " " + dump(e.get());
  return out;
}

std::string dumpParams(const std::vector<Param>& params) {
  std::string out;
  for (const Param& p : params) {
    out += " ";
    if (p.positionalOnly) out += "/";
    if (p.keywordOnly) out += "kw:";
    if (p.varArgs) out += "*";
    if (p.varKwargs) out += "**";
    out += p.name;
    if (p.annotation) out += ":" + dump(p.annotation.get());
    if (p.defaultValue) out += "=" + dump(p.defaultValue.get());
  }
  return out;
}

std::string dump(const Expr* e) {
  if (!e) return "_";
  switch (e->kind) {
    case ExprKind::Name:
      return e->id;
    case ExprKind::Int:
      return std::to_string(e->intValue);
    case ExprKind::Float: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", e->floatValue);
      return std::string(buf) + (e->imaginary ? "j" : "");
    }
    case ExprKind::Str:
      return "\"" + e->strValue + "\"";
    case ExprKind::FStr: {
      std::string out = "(f";
      for (const FStrPart& p : e->fstrParts) {
        if (!p.expr) {
          out += " \"" + p.literal + "\"";
          continue;
        }
        out += " {" + dump(p.expr.get());
        if (p.conversion) out += std::string("!") + p.conversion;
        if (!p.formatSpec.empty()) out += ":" + p.formatSpec;
        out += "}";
      }
      return out + ")";
    }
    case ExprKind::Bool:
      return e->boolValue ? "True" : "False";
    case ExprKind::None:
      return "None";
    case ExprKind::Ellipsis:
      return "...";
    case ExprKind::Tuple:
      return "(tuple" + dumpList(e->elts) + ")";
    case ExprKind::List:
      return "(list" + dumpList(e->elts) + ")";
    case ExprKind::Set:
      return "(set" + dumpList(e->elts) + ")";
    case ExprKind::Dict: {
      std::string out = "(dict";
      for (size_t i = 0; i < e->keys.size(); ++i)
        out += " " + (e->keys[i] ? dump(e->keys[i].get()) : "**") + ":" + dump(e->values[i].get());
      return out + ")";
    }
    case ExprKind::Attribute:
      return "(. " + dump(e->lhs.get()) + " " + e->id + ")";
    case ExprKind::Subscript:
      return "([] " + dump(e->lhs.get()) + " " + dump(e->rhs.get()) + ")";
    case ExprKind::Slice:
      return "(: " + dump(e->lhs.get()) + " " + dump(e->rhs.get()) + " " + dump(e->step.get()) +
             ")";
    case ExprKind::Call: {
      std::string out = "(call " + dump(e->lhs.get()) + dumpList(e->elts);
      for (const Keyword& k : e->keywords)
        out += " " + (k.name.empty() ? "**" : k.name + "=") + dump(k.value.get());
      return out + ")";
    }
    case ExprKind::BinOp:
      return "(" + e->id + " " + dump(e->lhs.get()) + " " + dump(e->rhs.get()) + ")";
    case ExprKind::UnaryOp:
      return "(" + e->id + " " + dump(e->lhs.get()) + ")";
    case ExprKind::Compare: {
      std::string out = "(cmp " + dump(e->lhs.get());
      for (size_t i = 0; i < e->elts.size(); ++i)
        out += " " + e->compareOps[i] + " " + dump(e->elts[i].get());
      return out + ")";
    }
    case ExprKind::BoolOp:
      return "(" + e->id + dumpList(e->elts) + ")";
    case ExprKind::IfExp:
      return "(if " + dump(e->rhs.get()) + " " + dump(e->lhs.get()) + " " + dump(e->step.get()) +
             ")";
    case ExprKind::Starred:
      return "(* " + dump(e->lhs.get()) + ")";
    case ExprKind::Lambda:
      return "(lambda (" + dumpParams(e->params).substr(e->params.empty() ? 0 : 1) + ") " +
             dump(e->lhs.get()) + ")";
    case ExprKind::Comprehension:
      return "(comp)";
  }
  return "?";
}

std::string dump(const Expr& e) { return dump(&e); }

std::string dump(const StmtList& body);

std::string dump(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Expr:
      return dump(s.value.get());
    case StmtKind::Assign:
      return "(=" + dumpList(s.targets) + " " + dump(s.value.get()) + ")";
    case StmtKind::AugAssign:
      return "(" + s.op + "= " + dump(s.targets[0].get()) + " " + dump(s.value.get()) + ")";
    case StmtKind::AnnAssign:
      return "(ann " + dump(s.targets[0].get()) + " " + dump(s.annotation.get()) + " " +
             dump(s.value.get()) + ")";
    case StmtKind::For:
      return "(for " + dump(s.targets[0].get()) + " " + dump(s.iter.get()) + " " + dump(s.body) +
             (s.orelse.empty() ? "" : " else " + dump(s.orelse)) + ")";
    case StmtKind::While:
      return "(while " + dump(s.iter.get()) + " " + dump(s.body) +
             (s.orelse.empty() ? "" : " else " + dump(s.orelse)) + ")";
    case StmtKind::If:
      return "(if " + dump(s.iter.get()) + " " + dump(s.body) +
             (s.orelse.empty() ? "" : " else " + dump(s.orelse)) + ")";
    case StmtKind::With: {
      std::string out = "(with";
      for (const WithItem& w : s.withItems)
        out += " " + dump(w.context.get()) + (w.target ? " as " + dump(w.target.get()) : "");
      return out + " " + dump(s.body) + ")";
    }
    case StmtKind::FunctionDef: {
      std::string out = "(def";
      for (const ExprPtr& d : s.decorators) out += " @" + dump(d.get());
      out += " " + s.name + " (" + dumpParams(s.params).substr(s.params.empty() ? 0 : 1) + ")";
      if (s.returns) out += " -> " + dump(s.returns.get());
      return out + " " + dump(s.body) + ")";
    }
    case StmtKind::ClassDef: {
      std::string out = "(class";
      for (const ExprPtr& d : s.decorators) out += " @" + dump(d.get());
      return out + " " + s.name + " " + dump(s.body) + ")";
    }
    case StmtKind::Return:
      return "(return " + dump(s.value.get()) + ")";
    case StmtKind::Pass:
      return "pass";
    case StmtKind::Break:
      return "break";
    case StmtKind::Continue:
      return "continue";
    case StmtKind::Assert:
      return "(assert " + dump(s.value.get()) + " " + dump(s.annotation.get()) + ")";
    case StmtKind::Raise:
      return "(raise " + dump(s.value.get()) + ")";
    case StmtKind::Import: {
      std::string out = s.fromImport ? "(from-import" : "(import";
      for (const ImportName& n : s.importNames)
        out += " " + n.module + (n.alias.empty() ? "" : " as " + n.alias);
      return out + ")";
    }
    case StmtKind::Global:
      return "(global" + dumpList(s.targets) + ")";
    case StmtKind::Delete:
      return "(del" + dumpList(s.targets) + ")";
    case StmtKind::Unparsed:
      return "(unparsed)";
  }
  return "?";
}

std::string dump(const StmtList& body) {
  std::string out = "[";
  for (const StmtPtr& s : body) out += (out.size() > 1 ? " " : "") + dump(*s);
  return out + "]";
}

Module parse(const std::string& src, DiagnosticEngine& diags) {
  SourceFile file("t.py", src);
  return parseModule(file, diags);
}

// Parses a file that must be free of lexical errors; returns the dump.
std::string parseDump(const std::string& src) {
  DiagnosticEngine diags;
  Module m = parse(src, diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderAll();
  std::string out;
  for (const StmtPtr& s : m.body) out += (out.empty() ? "" : "\n") + dump(*s);
  return out;
}

// Same, for inputs whose lexical errors are expected.
std::string parseDumpWithErrors(const std::string& src) {
  DiagnosticEngine diags;
  Module m = parse(src, diags);
  EXPECT_TRUE(diags.hasErrors());
  std::string out;
  for (const StmtPtr& s : m.body) out += (out.empty() ? "" : "\n") + dump(*s);
  return out;
}

std::string exprDump(const std::string& src) { return parseDump(src + "\n"); }

std::string at(SourceLoc l) { return std::to_string(l.line) + ":" + std::to_string(l.col); }

// Parses and returns the single Unparsed statement's "reason @ line:col".
std::string unparsedReason(const std::string& src) {
  DiagnosticEngine diags;
  Module m = parse(src, diags);
  for (const StmtPtr& s : m.body)
    if (s->kind == StmtKind::Unparsed) return s->reason + " @ " + at(s->reasonLoc);
  return "<parsed>";
}

// Every statement has a location and ends no earlier than it starts.
void checkLocations(const StmtList& body) {
  for (const StmtPtr& s : body) {
    ASSERT_TRUE(s->loc.valid());
    bool ordered = s->endLoc.line > s->loc.line ||
                   (s->endLoc.line == s->loc.line && s->endLoc.col > s->loc.col);
    ASSERT_TRUE(ordered) << at(s->loc) << " .. " << at(s->endLoc);
    checkLocations(s->body);
    checkLocations(s->orelse);
  }
}

const char* kKernel = R"PY(import torch
import tilelang
import tilelang.language as T
from tilelang import jit

@tilelang.jit(out_idx=[-1], pass_configs={tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True})
def vec_add(N, block_N=4096, dtype="float16"):
    n_num = N // block_N
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(n_num, is_npu=True) as (cid, vid):
            a = T.alloc_ub((block_N,), dtype)
            T.annotate_buffer_versions({a: (2, "counter"), b: "iteration"})
            for i in T.Pipelined(4, num_stages=2, annotations={"enable_offset": True}):
                T.copy(A[cid * block_N + i * 8:cid * block_N + i * 8 + 8], a)
                for (i, j) in T.Parallel(8, 16):
                    c[i, j] = a[i, j] + b[i, j] if i < 4 else T.exp(a[i, j])
    return main

class Helper(object):
    """Doc string."""
    def run(self, *args, **kw):
        try:
            return 1
        except Exception as e:
            raise RuntimeError("bad") from e

if __name__ == "__main__":
    func = vec_add(1024)
    ref = [x * 2 for x in range(10)]
    torch.testing.assert_close(c, ref, rtol=1e-2, atol=1e-2)
    print(f"ok {c.shape!r:>10}")
)PY";

}  // namespace

// --- expressions ---------------------------------------------------------------

TEST(ParserExpr, ArithmeticPrecedence) {
  EXPECT_EQ(exprDump("a + b * c ** -d"), "(+ a (* b (** c (- d))))");
  EXPECT_EQ(exprDump("-a ** b"), "(- (** a b))");
  EXPECT_EQ(exprDump("a ** b ** c"), "(** a (** b c))");
  EXPECT_EQ(exprDump("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(exprDump("a | b ^ c & d << e + f // g @ h"),
            "(| a (^ b (& c (<< d (+ e (@ (// f g) h))))))");
  EXPECT_EQ(exprDump("~a % b"), "(% (~ a) b)");
}

TEST(ParserExpr, BooleanAndConditional) {
  EXPECT_EQ(exprDump("not a and b or c and d"), "(or (and (not a) b) (and c d))");
  EXPECT_EQ(exprDump("a or b or c"), "(or a b c)");
  EXPECT_EQ(exprDump("x if c else y if d else z"), "(if c x (if d y z))");
  EXPECT_EQ(exprDump("not not a"), "(not (not a))");
}

TEST(ParserExpr, ChainedComparison) {
  EXPECT_EQ(exprDump("a < b <= c == d != e > f >= g"), "(cmp a < b <= c == d != e > f >= g)");
  EXPECT_EQ(exprDump("a in b not in c is d is not e"), "(cmp a in b not in c is d is not e)");
  EXPECT_EQ(exprDump("not a < b"), "(not (cmp a < b))");
  EXPECT_EQ(exprDump("a + 1 < b * 2"), "(cmp (+ a 1) < (* b 2))");
}

TEST(ParserExpr, Literals) {
  EXPECT_EQ(exprDump("(1, 2.5, 3j, True, False, None, ...)"),
            "(tuple 1 2.5 3j True False None ...)");
  EXPECT_EQ(exprDump("'a' \"b\" '''c'''"), "\"abc\"");
  EXPECT_EQ(exprDump("()"), "(tuple)");
  EXPECT_EQ(exprDump("(1,)"), "(tuple 1)");
  EXPECT_EQ(exprDump("(1)"), "1");
  EXPECT_EQ(exprDump("[1, *a, 2,]"), "(list 1 (* a) 2)");
  EXPECT_EQ(exprDump("{}"), "(dict)");
  EXPECT_EQ(exprDump("{1: 2, 'k': v, **rest}"), "(dict 1:2 \"k\":v **:rest)");
  EXPECT_EQ(exprDump("{a, b}"), "(set a b)");
}

TEST(ParserExpr, BareTuplesAndStarred) {
  EXPECT_EQ(exprDump("a, b"), "(tuple a b)");
  EXPECT_EQ(exprDump("a, *b,"), "(tuple a (* b))");
}

TEST(ParserExpr, SubscriptsAndSlices) {
  EXPECT_EQ(exprDump("a[i, j:k, :]"), "([] a (tuple i (: j k _) (: _ _ _)))");
  EXPECT_EQ(exprDump("a[::2]"), "([] a (: _ _ 2))");
  EXPECT_EQ(exprDump("a[1:]"), "([] a (: 1 _ _))");
  EXPECT_EQ(exprDump("a[x+1:y:z]"), "([] a (: (+ x 1) y z))");
  EXPECT_EQ(exprDump("a[i][j]"), "([] ([] a i) j)");
  EXPECT_EQ(exprDump("a[i,]"), "([] a (tuple i))");
}

TEST(ParserExpr, CallsAndAttributes) {
  EXPECT_EQ(exprDump("f(a, *b, c=1, **d)"), "(call f a (* b) c=1 **d)");
  EXPECT_EQ(exprDump("T.copy(A[0:8], a,)"), "(call (. T copy) ([] A (: 0 8 _)) a)");
  EXPECT_EQ(exprDump("f()(x).y"), "(. (call (call f) x) y)");
  EXPECT_EQ(exprDump("sum(x for x in y)"), "(call sum (comp))");
  EXPECT_EQ(exprDump("[x for x in y if (x)]"), "(comp)");
  EXPECT_EQ(exprDump("{k: v for k, v in d}"), "(comp)");
}

TEST(ParserExpr, Lambda) {
  EXPECT_EQ(exprDump("lambda x, y=1, *a, k, **kw: x + y"), "(lambda (x y=1 *a kw:k **kw) (+ x y))");
  EXPECT_EQ(exprDump("lambda: 0"), "(lambda () 0)");
}

TEST(ParserExpr, FStringParts) {
  EXPECT_EQ(exprDump("f\"ok {c.shape!r:>10} n={n + 1}\""),
            "(f \"ok \" {(. c shape)!r:>10} \" n=\" {(+ n 1)})");
  EXPECT_EQ(exprDump("'a' f'{x}' 'b'"), "(f \"a\" {x} \"b\")");
  EXPECT_EQ(exprDump("f'{x=}'"), "(f \"x=\" {x!r})");
  EXPECT_EQ(exprDump("f'{a:{w}}'"), "(f {a:{w}})");
  EXPECT_EQ(exprDump("f\"{d['k']} {f'{y}'}\""), "(f {([] d \"k\")} \" \" {(f {y})})");
}

TEST(ParserExpr, ExpressionLocations) {
  DiagnosticEngine diags;
  Module m = parse("x = a + f(b)[c]\n", diags);
  const Expr& sum = *m.body[0]->value;
  EXPECT_EQ(at(sum.loc), "1:5");
  EXPECT_EQ(at(sum.rhs->loc), "1:9");        // the subscript starts at its value
  EXPECT_EQ(at(sum.rhs->rhs->loc), "1:14");  // c
}

// --- statements ----------------------------------------------------------------

TEST(ParserStmt, Assignments) {
  EXPECT_EQ(parseDump("a = b = c\n"), "(= a b c)");
  EXPECT_EQ(parseDump("a, b = 1, 2\n"), "(= (tuple a b) (tuple 1 2))");
  EXPECT_EQ(parseDump("(a, *b), c[0] = x\n"), "(= (tuple (tuple a (* b)) ([] c 0)) x)");
  EXPECT_EQ(parseDump("x.y //= 2\n"), "(//= (. x y) 2)");
  EXPECT_EQ(parseDump("a **= 2\n"), "(**= a 2)");
  EXPECT_EQ(parseDump("n: int = 4\nm: T.float32\n"), "(ann n int 4)\n(ann m (. T float32) _)");
}

TEST(ParserStmt, SimpleStatementsAndSemicolons) {
  EXPECT_EQ(parseDump("pass; break; continue\n"), "pass\nbreak\ncontinue");
  EXPECT_EQ(parseDump("return\nreturn a, b\n"), "(return _)\n(return (tuple a b))");
  EXPECT_EQ(parseDump("assert x > 0, f'bad {x}'\n"), "(assert (cmp x > 0) (f \"bad \" {x}))");
  EXPECT_EQ(parseDump("raise ValueError('m') from e\nraise\n"),
            "(raise (call ValueError \"m\"))\n(raise _)");
  EXPECT_EQ(parseDump("global a, b\nnonlocal c\n"), "(global a b)\n(global c)");
  EXPECT_EQ(parseDump("del a, b[0]\n"), "(del a ([] b 0))");
  EXPECT_EQ(parseDump("x = 1;\n"), "(= x 1)");
}

TEST(ParserStmt, Imports) {
  EXPECT_EQ(parseDump("import tilelang.language as T, os\n"), "(import tilelang.language as T os)");
  EXPECT_EQ(parseDump("from tilelang import jit as J, language\n"),
            "(from-import tilelang.jit as J tilelang.language)");
  EXPECT_EQ(parseDump("from x import (a,\n   b as c,)\n"), "(from-import x.a x.b as c)");
  EXPECT_EQ(parseDump("from m import *\n"), "(from-import m.*)");
  EXPECT_EQ(parseDump("from . import a\nfrom ..p.q import b\n"),
            "(from-import .a)\n(from-import ..p.q.b)");
}

TEST(ParserStmt, IfElifElseTree) {
  EXPECT_EQ(parseDump("if a:\n  x\nelif b:\n  y\nelif c: z\nelse:\n  w\nnext\n"),
            "(if a [x] else [(if b [y] else [(if c [z] else [w])])])\nnext");
  DiagnosticEngine diags;
  Module m = parse("if a:\n  x\nelif b:\n  y\n", diags);
  const Stmt& elif = *m.body[0]->orelse[0];
  EXPECT_EQ(at(elif.loc), "3:1");
  EXPECT_EQ(at(m.body[0]->endLoc), "4:4");
}

TEST(ParserStmt, LoopsWithElse) {
  EXPECT_EQ(parseDump("for i, j in T.Parallel(8, 16):\n  c[i, j] = 0\nelse:\n  pass\n"),
            "(for (tuple i j) (call (. T Parallel) 8 16) [(= ([] c (tuple i j)) 0)] else [pass])");
  EXPECT_EQ(parseDump("for (i, j) in x: pass\n"), "(for (tuple i j) x [pass])");
  EXPECT_EQ(parseDump("for x in a, b:\n  pass\n"), "(for x (tuple a b) [pass])");
  EXPECT_EQ(parseDump("while n > 0:\n  n -= 1\nelse:\n  done()\n"),
            "(while (cmp n > 0) [(-= n 1)] else [(call done)])");
}

TEST(ParserStmt, WithItems) {
  EXPECT_EQ(parseDump("with T.Kernel(n, is_npu=True) as (cid, vid):\n  pass\n"),
            "(with (call (. T Kernel) n is_npu=True) as (tuple cid vid) [pass])");
  EXPECT_EQ(parseDump("with a as x, b:\n  pass\n"), "(with a as x b [pass])");
  EXPECT_EQ(parseDump("with (a as x,\n      b as y):\n  pass\n"), "(with a as x b as y [pass])");
  EXPECT_EQ(parseDump("with (a, b) as c:\n  pass\n"), "(with (tuple a b) as c [pass])");
  EXPECT_EQ(parseDump("with (a):\n  pass\n"), "(with a [pass])");
}

TEST(ParserStmt, FunctionDefinitions) {
  EXPECT_EQ(parseDump("@d1\n@T.jit(out_idx=[-1])\ndef f(a, b: int = 2, /, c=3, *args: T, d, "
                      "e=4, **kw) -> R:\n  return a\n"),
            "(def @d1 @(call (. T jit) out_idx=(list (- 1))) f (/a /b:int=2 c=3 *args:T kw:d "
            "kw:e=4 **kw) -> R [(return a)])");
  EXPECT_EQ(parseDump("def g(*, k): pass\n"), "(def g (kw:k) [pass])");
  DiagnosticEngine diags;
  Module m = parse("@dec\ndef f(a, *b):\n    x = 1\n\n\ny\n", diags);
  EXPECT_EQ(at(m.body[0]->loc), "1:1");  // a decorated def starts at its '@'
  EXPECT_EQ(at(m.body[0]->endLoc), "3:10");
  EXPECT_EQ(at(m.body[0]->params[1].loc), "2:11");
}

TEST(ParserStmt, ParameterErrors) {
  EXPECT_EQ(unparsedReason("def f(a=1, b): pass\n"),
            "parameter without a default follows parameter with a default @ 1:12");
  EXPECT_EQ(unparsedReason("def f(a, a): pass\n"),
            "duplicate argument 'a' in function definition @ 1:10");
  EXPECT_EQ(unparsedReason("def f(*): pass\n"), "named arguments must follow bare * @ 1:8");
}

TEST(ParserStmt, ClassKeepsDecoratorsNameAndBody) {
  EXPECT_EQ(parseDump("@dataclass\nclass A(B, metaclass=M):\n  x: int = 0\n  def f(self): pass\n"),
            "(class @dataclass A [(ann x int 0) (def f (self) [pass])])");
}

TEST(ParserStmt, AdjacentStringConcatenationAcrossLines) {
  EXPECT_EQ(parseDump("x = ('a'\n     'b')\n"), "(= x \"ab\")");
}

// --- unparsed statements ------------------------------------------------------

TEST(ParserUnparsed, TryCoversAllClausesThenParsingResumes) {
  DiagnosticEngine diags;
  Module m = parse("try:\n    a = 1\nexcept E as e:\n    b\nelse:\n    c\nfinally:\n    d\nx = 2\n",
                   diags);
  EXPECT_FALSE(diags.hasErrors());
  ASSERT_EQ(m.body.size(), 2u);
  const Stmt& s = *m.body[0];
  EXPECT_EQ(s.kind, StmtKind::Unparsed);
  EXPECT_EQ(s.reason, "'try' statements are not supported");
  EXPECT_EQ(at(s.loc), "1:1");
  EXPECT_EQ(at(s.reasonLoc), "1:1");
  EXPECT_EQ(at(s.endLoc), "8:6");
  EXPECT_EQ(dump(*m.body[1]), "(= x 2)");
}

TEST(ParserUnparsed, MatchStatement) {
  std::string src =
      "match cmd:\n    case [x, y]:\n        pass\n    case _:\n        pass\nz = 1\n";
  DiagnosticEngine diags;
  Module m = parse(src, diags);
  ASSERT_EQ(m.body.size(), 2u);
  EXPECT_EQ(m.body[0]->reason, "'match' statements are not supported");
  EXPECT_EQ(at(m.body[0]->endLoc), "5:13");
  EXPECT_EQ(dump(*m.body[1]), "(= z 1)");
  // `match` stays an ordinary name elsewhere.
  EXPECT_EQ(parseDump("match = re.match(p, s)\nmatch(x)\n"),
            "(= match (call (. re match) p s))\n(call match x)");
}

TEST(ParserUnparsed, AsyncAndDecoratedAsync) {
  DiagnosticEngine diags;
  Module m = parse(
      "async def f():\n    await g()\n@dec\nasync def h():\n    pass\nasync for x in y:\n  a\n"
      "else:\n  b\nok = 1\n",
      diags);
  ASSERT_EQ(m.body.size(), 4u);
  EXPECT_EQ(m.body[0]->reason, "'async' statements are not supported");
  EXPECT_EQ(at(m.body[1]->loc), "3:1");
  EXPECT_EQ(at(m.body[1]->reasonLoc), "4:1");
  EXPECT_EQ(at(m.body[2]->endLoc), "9:4");
  EXPECT_EQ(dump(*m.body[3]), "(= ok 1)");
}

TEST(ParserUnparsed, OtherUnsupportedConstructs) {
  EXPECT_EQ(unparsedReason("x = yield y\n"), "'yield' expressions are not supported @ 1:5");
  EXPECT_EQ(unparsedReason("if (n := f()):\n  pass\n"),
            "assignment expressions are not supported @ 1:7");
  EXPECT_EQ(unparsedReason("x = await y\n"), "'await' expressions are not supported @ 1:5");
  EXPECT_EQ(unparsedReason("type Alias = int\n"), "'type' statements are not supported @ 1:1");
  EXPECT_EQ(unparsedReason("def f[T](x): pass\n"), "type parameters are not supported @ 1:6");
  EXPECT_EQ(unparsedReason("x = 99999999999999999999\n"),
            "integer literal '99999999999999999999' is too large (integers must fit in 64 "
            "bits) @ 1:5");
  EXPECT_EQ(unparsedReason("x = b'a' 'b'\n"), "cannot mix bytes and nonbytes literals @ 1:10");
}

TEST(ParserUnparsed, SyntaxErrorReasons) {
  EXPECT_EQ(unparsedReason("x = f(a, b\n"), "expected ')' to close '(' at 1:6 @ 2:1");
  EXPECT_EQ(unparsedReason("x = f(a b)\n"), "expected ')' to close '(' at 1:6 @ 1:9");
  EXPECT_EQ(unparsedReason("if x\n  y\n"), "expected ':' @ 1:5");
  EXPECT_EQ(unparsedReason("if x:\ny\n"),
            "expected an indented block after 'if' statement on line 1 @ 2:1");
  EXPECT_EQ(unparsedReason("  x = 1\n"), "unexpected indent @ 1:3");
  EXPECT_EQ(unparsedReason("f() = 1\n"), "cannot assign to function call @ 1:1");
  EXPECT_EQ(unparsedReason("a + 1 += 2\n"),
            "'expression' is an illegal expression for augmented assignment @ 1:1");
  EXPECT_EQ(unparsedReason("print 'x'\n"), "unexpected string literal @ 1:7");
  EXPECT_EQ(unparsedReason("else:\n  pass\n"), "'else' without a matching statement @ 1:1");
  EXPECT_EQ(unparsedReason("f(a=1, b)\n"), "positional argument follows keyword argument @ 1:8");
  EXPECT_EQ(unparsedReason("x = a if b\n"), "expected 'else' after 'if' expression @ 1:11");
  EXPECT_EQ(unparsedReason("f'{}'\n"), "f-string: valid expression required before '}' @ 1:3");
  EXPECT_EQ(unparsedReason("f'{a b}'\n"), "f-string: expecting '}' @ 1:6");
}

TEST(ParserUnparsed, ExtentCoversHeaderAndBlockOnly) {
  DiagnosticEngine diags;
  Module m = parse("for x in :\n    a\n    if b:\n        c\nd = 1\n", diags);
  ASSERT_EQ(m.body.size(), 2u);
  EXPECT_EQ(m.body[0]->kind, StmtKind::Unparsed);
  EXPECT_EQ(at(m.body[0]->endLoc), "4:10");
  EXPECT_EQ(dump(*m.body[1]), "(= d 1)");
}

TEST(ParserUnparsed, ErrorInElseClauseCoversTheWholeIf) {
  DiagnosticEngine diags;
  Module m = parse("if a:\n  b\nelse c:\n  d\nafter\n", diags);
  ASSERT_EQ(m.body.size(), 2u);
  EXPECT_EQ(m.body[0]->kind, StmtKind::Unparsed);
  EXPECT_EQ(at(m.body[0]->reasonLoc), "3:6");
  EXPECT_EQ(dump(*m.body[1]), "after");
}

TEST(ParserUnparsed, BadStatementInsideBodyKeepsEnclosingDef) {
  EXPECT_EQ(
      parseDumpWithErrors("def f(N):\n    a = 1\n    try:\n        b\n    except:\n        c\n"
                          "    x = (1 +\n    return a\n"),
      "(def f (N) [(= a 1) (unparsed) (unparsed) (return a)])");
  EXPECT_EQ(parseDump("if a:\n    x = \n    y = 2\n"), "(if a [(unparsed) (= y 2)])");
  // A bracket left open is closed by the lexer at the next statement keyword.
  EXPECT_EQ(parseDumpWithErrors("def f():\n    x = g(1,\n    return x\n"),
            "(def f () [(unparsed) (return x)])");
}

TEST(ParserUnparsed, SemicolonLineFailsAsAWhole) {
  DiagnosticEngine diags;
  Module m = parse("a = 1; b = ; c = 3\nd = 4\n", diags);
  ASSERT_EQ(m.body.size(), 2u);
  EXPECT_EQ(m.body[0]->kind, StmtKind::Unparsed);
  EXPECT_EQ(dump(*m.body[1]), "(= d 4)");
}

// --- limits and robustness ----------------------------------------------------

TEST(ParserLimits, DeepParenthesesBecomeUnparsed) {
  DiagnosticEngine diags;
  Module m = parse("x = " + std::string(100000, '(') + "\ny = 1\n", diags);
  ASSERT_FALSE(m.body.empty());
  EXPECT_EQ(m.body[0]->kind, StmtKind::Unparsed);
  EXPECT_EQ(m.body[0]->reason, "expression nested too deeply");
}

TEST(ParserLimits, LongChainsAndUnaryRunsAreBounded) {
  std::string chain = "x = 1";
  for (int i = 0; i < 20000; ++i) chain += " + 1";
  EXPECT_EQ(unparsedReason(chain + "\n").substr(0, 28), "expression nested too deeply");
  EXPECT_EQ(unparsedReason("x = " + std::string(50000, '-') + "1\n").substr(0, 28),
            "expression nested too deeply");
  std::string attrs = "x = a";
  for (int i = 0; i < 5000; ++i) attrs += ".b";
  EXPECT_EQ(unparsedReason(attrs + "\n").substr(0, 28), "expression nested too deeply");
  // Moderate nesting still parses.
  EXPECT_EQ(unparsedReason("x = " + std::string(150, '(') + "1" + std::string(150, ')') + "\n"),
            "<parsed>");
}

// Found by fuzz_frontend's hostile inputs: a right-associative power chain
// recursed through parseFactor without a depth guard (stack overflow).
TEST(ParserLimits, LongPowerChainsAreBounded) {
  std::string pow = "x = 1";
  for (int i = 0; i < 100000; ++i) pow += " ** 1";
  EXPECT_EQ(unparsedReason(pow + "\n").substr(0, 28), "expression nested too deeply");
  std::string mixed = "x = 2";
  for (int i = 0; i < 50000; ++i) mixed += " ** -2";
  EXPECT_EQ(unparsedReason(mixed + "\n").substr(0, 28), "expression nested too deeply");
  EXPECT_EQ(unparsedReason("x = 2 ** 3 ** -2 ** 2\n"), "<parsed>");
}

TEST(ParserLimits, DeepIndentationBecomesUnparsed) {
  std::string src;
  for (int i = 0; i < 150; ++i) src += std::string(i, ' ') + "if a:\n";
  src += std::string(150, ' ') + "pass\nz = 1\n";
  DiagnosticEngine diags;
  Module m = parse(src, diags);
  ASSERT_EQ(m.body.size(), 2u);
  const Stmt* s = m.body[0].get();
  int depth = 0;
  while (s->kind == StmtKind::If && !s->body.empty()) {
    s = s->body[0].get();
    ++depth;
  }
  EXPECT_EQ(s->kind, StmtKind::Unparsed);
  EXPECT_EQ(s->reason, "too many levels of indentation");
  EXPECT_EQ(depth, kMaxBlockDepth);
  EXPECT_EQ(dump(*m.body[1]), "(= z 1)");
}

TEST(ParserLimits, LongElifChainsParseIteratively) {
  std::string src = "if a == 0:\n  pass\n";
  for (int i = 1; i < 900; ++i) src += "elif a == " + std::to_string(i) + ":\n  pass\n";
  DiagnosticEngine diags;
  Module m = parse(src, diags);
  ASSERT_EQ(m.body.size(), 1u);
  EXPECT_EQ(m.body[0]->kind, StmtKind::If);
  for (int i = 0; i < 20000; ++i) src += "elif a:\n  pass\n";
  Module big = parse(src, diags);
  ASSERT_EQ(big.body.size(), 1u);
  EXPECT_EQ(big.body[0]->reason, "too many 'elif' clauses");
}

TEST(ParserRobustness, RealisticKernelParsesIntoRealNodes) {
  DiagnosticEngine diags;
  Module m = parse(kKernel, diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderAll();
  ASSERT_EQ(m.body.size(), 7u);
  EXPECT_EQ(dump(*m.body[2]), "(import tilelang.language as T)");
  const Stmt& factory = *m.body[4];
  ASSERT_EQ(factory.kind, StmtKind::FunctionDef);
  EXPECT_EQ(dump(*factory.decorators[0]),
            "(call (. tilelang jit) out_idx=(list (- 1)) pass_configs=(dict (. (. tilelang "
            "PassConfigKey) TL_ASCEND_AUTO_SYNC):True))");
  EXPECT_EQ(dumpParams(factory.params), " N block_N=4096 dtype=\"float16\"");
  ASSERT_EQ(factory.body.size(), 3u);
  const Stmt& kernel = *factory.body[1];
  EXPECT_EQ(kernel.name, "main");
  EXPECT_EQ(dump(*kernel.decorators[0]), "(. T prim_func)");
  EXPECT_EQ(dump(*kernel.params[0].annotation), "(call (. T Tensor) (tuple N) dtype)");
  const Stmt& with = *kernel.body[0];
  ASSERT_EQ(with.kind, StmtKind::With);
  EXPECT_EQ(dump(*with.withItems[0].target), "(tuple cid vid)");
  EXPECT_EQ(dump(*with.body[1]),
            "(call (. T annotate_buffer_versions) (dict a:(tuple 2 \"counter\") "
            "b:\"iteration\"))");
  const Stmt& pipelined = *with.body[2];
  EXPECT_EQ(dump(*pipelined.iter),
            "(call (. T Pipelined) 4 num_stages=2 annotations=(dict \"enable_offset\":True))");
  EXPECT_EQ(dump(*pipelined.body[0]),
            "(call (. T copy) ([] A (: (+ (* cid block_N) (* i 8)) (+ (+ (* cid block_N) (* i "
            "8)) 8) _)) a)");
  EXPECT_EQ(dump(*pipelined.body[1]->body[0]),
            "(= ([] c (tuple i j)) (if (cmp i < 4) (+ ([] a (tuple i j)) ([] b (tuple i j))) "
            "(call (. T exp) ([] a (tuple i j)))))");
  EXPECT_EQ(dump(*factory.body[2]), "(return main)");
  // The class parses; the try inside its method is Unparsed.
  const Stmt& cls = *m.body[5];
  ASSERT_EQ(cls.kind, StmtKind::ClassDef);
  EXPECT_EQ(dump(*cls.body[1]), "(def run (self *args **kw) [(unparsed)])");
  const Stmt& main = *m.body[6];
  EXPECT_EQ(dump(*main.iter), "(cmp __name__ == \"__main__\")");
  EXPECT_EQ(dump(*main.body[3]), "(call print (f \"ok \" {(. c shape)!r:>10}))");
  checkLocations(m.body);
}

TEST(ParserRobustness, RandomBytesAndMutatedKernelsAlwaysReturn) {
  std::mt19937 rng(12345);
  const std::string kernel = kKernel;
  const std::string alphabet = "()[]{}:=,.'\"\\#\n\n    \tabcfrT0123456789+-*/@!<>;_jxe";
  for (int iter = 0; iter < 1500; ++iter) {
    std::string src;
    int mode = iter % 4;
    if (mode == 0) {  // random bytes
      size_t n = rng() % 400;
      for (size_t i = 0; i < n; ++i) src += char(rng() % 256);
    } else if (mode == 1) {  // truncated kernel
      src = kernel.substr(0, rng() % (kernel.size() + 1));
    } else {  // mutated kernel: replace / insert / delete a few bytes
      src = kernel;
      int edits = 1 + int(rng() % 6);
      for (int k = 0; k < edits && !src.empty(); ++k) {
        size_t p = rng() % src.size();
        char c = mode == 2 ? alphabet[rng() % alphabet.size()] : char(rng() % 256);
        switch (rng() % 3) {
          case 0:
            src[p] = c;
            break;
          case 1:
            src.insert(src.begin() + long(p), c);
            break;
          default:
            src.erase(p, 1 + rng() % 8);
            break;
        }
      }
    }
    SCOPED_TRACE("iteration " + std::to_string(iter));
    DiagnosticEngine diags;
    Module m = parse(src, diags);
    checkLocations(m.body);
    DiagnosticEngine exprDiags;
    parseExpressionText(src.substr(0, 60), exprDiags);
  }
}

TEST(ParserRobustness, EdgeInputs) {
  DiagnosticEngine diags;
  EXPECT_TRUE(parse("", diags).body.empty());
  EXPECT_TRUE(parse("\n\n# c\n", diags).body.empty());
  EXPECT_FALSE(diags.hasErrors());
  EXPECT_EQ(parse("x = 1", diags).body.size(), 1u);
  Module m = parse(std::string("\0\0\0", 3), diags);
  EXPECT_TRUE(m.body.empty());
  Module fnest = parse("x = " + std::string(200, 'f') + std::string(100, '\'') + "\n", diags);
  EXPECT_FALSE(fnest.body.empty());
  std::string deepF = "x = ";
  for (int i = 0; i < 100; ++i) deepF += (i % 2 ? "f'{" : "f\"{");
  parse(deepF + "\n", diags);  // nested f-strings: bounded, reported
}

// --- parseExpressionText ---------------------------------------------------------

TEST(ParseExpressionText, ValuesOfDashD) {
  DiagnosticEngine diags;
  EXPECT_EQ(dump(parseExpressionText("1048576", diags).get()), "1048576");
  EXPECT_EQ(dump(parseExpressionText("float16", diags).get()), "float16");
  EXPECT_EQ(dump(parseExpressionText("\"float16\"", diags).get()), "\"float16\"");
  EXPECT_EQ(dump(parseExpressionText(" (128,\n 64) ", diags).get()), "(tuple 128 64)");
  EXPECT_EQ(dump(parseExpressionText("1, 2", diags).get()), "(tuple 1 2)");
  EXPECT_EQ(dump(parseExpressionText("True", diags).get()), "True");
  EXPECT_EQ(dump(parseExpressionText("-2.5e-3", diags).get()), "(- 0.0025)");
  EXPECT_EQ(dump(parseExpressionText("T.float16", diags).get()), "(. T float16)");
  EXPECT_FALSE(diags.hasErrors()) << diags.renderAll();
}

TEST(ParseExpressionText, RejectsNonExpressions) {
  DiagnosticEngine diags;
  EXPECT_EQ(parseExpressionText("1 2", diags), nullptr);
  EXPECT_EQ(parseExpressionText("", diags), nullptr);
  EXPECT_EQ(parseExpressionText("x = 1", diags), nullptr);
  EXPECT_EQ(parseExpressionText("'abc", diags), nullptr);
  EXPECT_EQ(parseExpressionText("(", diags), nullptr);
  ASSERT_EQ(diags.numErrors(), 5u);
  EXPECT_EQ(diags.all()[0].message, "invalid expression '1 2': unexpected '2'");
  EXPECT_EQ(diags.all()[1].message,
            "invalid expression '': expected an expression, found end of input");
  EXPECT_EQ(diags.all()[2].message, "invalid expression 'x = 1': unexpected '='");
  EXPECT_EQ(diags.all()[3].message, "invalid expression ''abc': unterminated string literal");
  EXPECT_EQ(diags.all()[4].message, "invalid expression '(': '(' was never closed");
  EXPECT_FALSE(diags.all()[0].loc.valid());
}
