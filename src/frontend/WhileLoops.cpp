// `while` loops in kernel bodies, as upstream's example_while_pipelined.py
// writes them: a T.alloc_var counter compared with a bound, stepped once per
// iteration.
//
// What it does: `while v < E: body` whose body steps `v` once by a
// compile-time constant c (`v = v + c`, `v += c`, `v = v - c`, `v -= c`),
// outside any branch or inner loop, and changes neither `v` otherwise nor a
// name of `E`, runs exactly ceil((E - v) / c) times (0 when negative), the
// count taken when the loop starts. It becomes a serial loop of that many
// iterations over the same body: the counter keeps being read and stepped as
// written, so its value inside and after the loop is the `while` loop's. The
// inner loops (a T.Pipelined over tiles) are scheduled as in any serial loop;
// the `while` itself is never pipelined, as upstream's AutoSchedule does not
// pipeline one either. `<=`, `>` and `>=` likewise (`>`/`>=` count down).
// Assumes: called for a `while` statement of a kernel body.
// Guarantees: any other `while` is a "not supported yet" error at the part
// that breaks the rule (condition, step, a second assignment, a break), and
// a counter that steps away from its bound is an error (it never ends).
#include <set>

#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"

namespace tilesched::frontend {

using namespace ir;
using K = Value::Kind;

namespace {

// The names a statement list assigns (any depth, nested loops included),
// with where; and the first break/continue that belongs to the loop itself.
struct BodyFacts {
  std::vector<std::pair<std::string, const py::Stmt*>> assigned;
  const py::Stmt* exit = nullptr;
};

void namesOfTarget(const py::Expr& t, const py::Stmt* s, BodyFacts& out) {
  if (t.kind == py::ExprKind::Name) out.assigned.push_back({t.id, s});
  if (t.kind == py::ExprKind::Tuple || t.kind == py::ExprKind::List)
    for (const auto& e : t.elts) namesOfTarget(*e, s, out);
}

void scan(const py::StmtList& body, bool ownLoop, BodyFacts& out) {
  for (const auto& s : body) {
    switch (s->kind) {
      case py::StmtKind::Assign:
      case py::StmtKind::AugAssign:
      case py::StmtKind::AnnAssign:
        for (const auto& t : s->targets) namesOfTarget(*t, s.get(), out);
        break;
      case py::StmtKind::For:
        for (const auto& t : s->targets) namesOfTarget(*t, s.get(), out);
        scan(s->body, false, out);
        scan(s->orelse, false, out);
        break;
      case py::StmtKind::While:
        scan(s->body, false, out);
        scan(s->orelse, false, out);
        break;
      case py::StmtKind::Break:
      case py::StmtKind::Continue:
        if (ownLoop && !out.exit) out.exit = s.get();
        break;
      default:
        scan(s->body, ownLoop, out);
        scan(s->orelse, ownLoop, out);
        break;
    }
  }
}

// Whether the bound expression only names values and does arithmetic.
const py::Expr* firstUnsupportedInBound(const py::Expr& e) {
  switch (e.kind) {
    case py::ExprKind::Name:
    case py::ExprKind::Int:
    case py::ExprKind::Attribute:
      return nullptr;
    case py::ExprKind::BinOp:
      if (auto* bad = firstUnsupportedInBound(*e.lhs)) return bad;
      return firstUnsupportedInBound(*e.rhs);
    case py::ExprKind::UnaryOp:
      return firstUnsupportedInBound(*e.lhs);
    default:
      return &e;
  }
}

void boundNames(const py::Expr& e, std::set<std::string>& out) {
  if (e.kind == py::ExprKind::Name) out.insert(e.id);
  if (e.kind == py::ExprKind::Attribute) return;  // module constants
  if (e.lhs) boundNames(*e.lhs, out);
  if (e.rhs) boundNames(*e.rhs, out);
}

std::string flipped(const std::string& op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op;
}

}  // namespace

void Elaborator::elabWhile(const py::Stmt& s, Env& env, BlockCtx& ctx) {
  if (!s.orelse.empty()) fail(s.orelse[0]->loc, "'while ... else' is not supported in a kernel");
  requireNotElementwise("a loop", s.loc, ctx);
  auto unsupported = [&](SourceLoc loc, const std::string& why) {
    fail(loc, fmt::format("this 'while' loop is not supported yet: {}; tilesched runs a while loop "
                          "that compares a T.alloc_var counter with a bound the body does not "
                          "change (v < E, v <= E, v > E, v >= E) and steps the counter once per "
                          "iteration by a constant (v = v + 1, v += c), outside any branch or "
                          "inner loop",
                          why));
  };
  const py::Expr& test = *s.iter;
  if (test.kind != py::ExprKind::Compare || test.compareOps.size() != 1)
    unsupported(test.loc, "its condition is not one comparison");
  auto isCounter = [&](const py::Expr& e) {
    if (e.kind != py::ExprKind::Name) return false;
    const Value* v = env.lookup(e.id);
    return v && v->kind == K::Buffer && v->buffer->storage->scope == MemScope::LocalVar;
  };
  const py::Expr* counterSide = test.lhs.get();
  const py::Expr* boundSide = test.elts[0].get();
  std::string op = test.compareOps[0];
  if (!isCounter(*counterSide) && isCounter(*boundSide)) {
    std::swap(counterSide, boundSide);
    op = flipped(op);
  }
  if (!isCounter(*counterSide))
    unsupported(test.loc, "neither side of its condition is a T.alloc_var");
  if (op != "<" && op != "<=" && op != ">" && op != ">=")
    unsupported(test.loc, fmt::format("its comparison is '{}'", test.compareOps[0]));
  if (const py::Expr* bad = firstUnsupportedInBound(*boundSide))
    unsupported(bad->loc, "its bound reads memory or calls a function");
  const std::string& counter = counterSide->id;

  // The one step of the counter, at the top level of the body.
  const py::Stmt* step = nullptr;
  const py::Expr* stepValue = nullptr;
  bool stepNegated = false;
  for (const auto& st : s.body) {
    bool assignsCounter = false;
    for (const auto& t : st->targets)
      assignsCounter |= t->kind == py::ExprKind::Name && t->id == counter;
    if (!assignsCounter || st->kind == py::StmtKind::For) continue;
    if (step) unsupported(st->loc, fmt::format("the body assigns '{}' twice", counter));
    step = st.get();
    if (st->kind == py::StmtKind::AugAssign && (st->op == "+" || st->op == "-")) {
      stepValue = st->value.get();
      stepNegated = st->op == "-";
    } else if (st->kind == py::StmtKind::Assign && st->targets.size() == 1 && st->value &&
               st->value->kind == py::ExprKind::BinOp &&
               (st->value->id == "+" || st->value->id == "-")) {
      const py::Expr& v = *st->value;
      bool left = v.lhs->kind == py::ExprKind::Name && v.lhs->id == counter;
      bool right = v.id == "+" && v.rhs->kind == py::ExprKind::Name && v.rhs->id == counter;
      if (left) stepValue = v.rhs.get();
      if (!left && right) stepValue = v.lhs.get();
      stepNegated = left && v.id == "-";
    }
    if (!stepValue)
      unsupported(st->loc, fmt::format("'{}' is not stepped by a constant here", counter));
  }
  if (!step) unsupported(s.loc, fmt::format("the body does not step '{}'", counter));
  BodyFacts facts;
  scan(s.body, true, facts);
  if (facts.exit) unsupported(facts.exit->loc, "the body leaves the loop with break/continue");
  std::set<std::string> bound;
  boundNames(*boundSide, bound);
  for (const auto& [name, where] : facts.assigned) {
    if (name == counter && where != step)
      unsupported(where->loc,
                  fmt::format("'{}' is assigned inside a branch or an inner loop", counter));
    if (bound.count(name))
      unsupported(where->loc, fmt::format("the body changes '{}', which the bound reads", name));
  }
  Value c = eval(*stepValue, env);
  if (c.kind != K::Int) unsupported(stepValue->loc, "its step is not a compile-time integer");
  int64_t delta = stepNegated ? -c.i : c.i;
  bool up = op == "<" || op == "<=";
  if (delta == 0 || (delta > 0) != up)
    fail(step->loc, fmt::format("'{}' steps by {} away from the bound of 'while {} {} ...': the "
                                "loop would never end",
                                counter, delta, counter, op));

  // Trips: ceil(span / |delta|), at least 0, taken at the loop's start.
  Expr now = toExpr(eval(*counterSide, env), counterSide->loc);
  Expr limit = toExpr(eval(*boundSide, env), boundSide->loc, now->dtype);
  if (!isInt(now->dtype) || !isInt(limit->dtype))
    fail(test.loc, "a while loop's counter and bound must be integers");
  Expr span = up ? sub(limit, now) : sub(now, limit);
  if (op == "<=" || op == ">=") span = add(span, 1);
  int64_t d = delta > 0 ? delta : -delta;
  Expr trips = d == 1 ? span : floordiv(add(span, d - 1), intImm(d));
  trips = binary(BinOp::Max, trips, intImm(0, trips->dtype));
  if (auto k = asConstInt(trips)) trips = intImm(*k);

  auto loop = std::make_shared<ForStmt>(s.loc);
  loop->forKind = ForKind::Serial;
  loop->var = makeVar(counter + "_while", DType::Int32, VarKind::Loop);
  loop->min = intImm(0);
  loop->extent = trips->dtype == DType::Int32 ? trips : cast(DType::Int32, trips);
  std::vector<Stmt> out;
  BlockCtx inner = ctx;
  inner.out = &out;
  elabScopedBlock(s.body, env, inner, "loop", s.loc, /*loop=*/true);
  loop->body = std::make_shared<SeqStmt>(std::move(out), s.loc);
  ctx.out->push_back(loop);
}

}  // namespace tilesched::frontend
