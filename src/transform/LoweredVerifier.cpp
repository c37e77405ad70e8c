// The lowered-IR verifier (see LoweredVerifier.h).
#include "transform/LoweredVerifier.h"

#include <map>
#include <optional>

#include <fmt/format.h>

#include "ir/IROperator.h"
#include "ir/Printer.h"

namespace tilesched::transform {

using namespace ir;

namespace {

struct Interval {
  int64_t lo, hi;
};

std::optional<Interval> bound(const Expr& e) {
  if (!e) return std::nullopt;
  if (auto c = asConstInt(e)) return Interval{*c, *c};
  if (e->kind != ExprKind::Binary) return std::nullopt;
  if (e->binOp == BinOp::FloorMod) {
    auto m = asConstInt(e->operands[1]);
    if (m && *m > 0) return Interval{0, *m - 1};
    return std::nullopt;
  }
  auto a = bound(e->operands[0]), b = bound(e->operands[1]);
  if (!a || !b) return std::nullopt;
  switch (e->binOp) {
    case BinOp::Add:
      return Interval{a->lo + b->lo, a->hi + b->hi};
    case BinOp::Sub:
      return Interval{a->lo - b->hi, a->hi - b->lo};
    case BinOp::Min:
      return Interval{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
    case BinOp::Max:
      return Interval{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
    default:
      return std::nullopt;
  }
}

using Balance = std::map<std::string, int64_t>;  // hard event -> sets minus waits

class Checker {
 public:
  Checker(int64_t ids, std::vector<std::string>& out) : ids_(ids), out_(out) {}

  Balance walk(const Stmt& s) {
    Balance b;
    if (!s) return b;
    switch (s->kind) {
      case StmtKind::Seq: {
        // Straight-line "set twice": ids set and not yet waited, by text.
        std::map<std::string, SourceLoc> pending;
        for (const auto& c : as<SeqStmt>(s)->stmts) {
          if (const auto* sf = as<SetFlagStmt>(c)) {
            std::string key = flagKey(sf->src, sf->dst, sf->eventId);
            if (pending.count(key))
              out_.push_back(
                  fmt::format("line {}: set_flag {} is set twice (also at line {}) "
                              "without a wait in between",
                              sf->loc.line, key, pending[key].line));
            pending[key] = sf->loc;
          } else if (const auto* wf = as<WaitFlagStmt>(c)) {
            pending.erase(flagKey(wf->src, wf->dst, wf->eventId));
          }
          add(b, walk(c));
        }
        return b;
      }
      case StmtKind::For: {
        const auto* f = as<ForStmt>(s);
        Balance body = walk(f->body);
        for (const auto& [ev, n] : body)
          if (n != 0)
            out_.push_back(fmt::format(
                "line {}: the body of loop '{}' leaves {} {} flag(s) {} per "
                "iteration; loop bodies must balance",
                f->loc.line, f->var->name, std::abs(n), ev, n > 0 ? "set" : "over-waited"));
        return b;
      }
      case StmtKind::If: {
        const auto* i = as<IfStmt>(s);
        Balance t = walk(i->thenBody), e = walk(i->elseBody);
        Balance all = t;
        for (const auto& [k, v] : e) all[k];
        for (const auto& [ev, n] : all) {
          int64_t te = t.count(ev) ? t[ev] : 0, ee = e.count(ev) ? e[ev] : 0;
          if (te != ee)
            out_.push_back(
                fmt::format("line {}: the branches of this if leave different numbers of "
                            "{} flags set ({} and {}); every path must balance",
                            i->loc.line, ev, te, ee));
        }
        return t;
      }
      case StmtKind::SetFlag: {
        const auto* sf = as<SetFlagStmt>(s);
        checkId(sf->src, sf->dst, sf->eventId, sf->loc, "set_flag");
        b[hardEventName(sf->src, sf->dst)] += 1;
        return b;
      }
      case StmtKind::WaitFlag: {
        const auto* wf = as<WaitFlagStmt>(s);
        checkId(wf->src, wf->dst, wf->eventId, wf->loc, "wait_flag");
        b[hardEventName(wf->src, wf->dst)] -= 1;
        return b;
      }
      default:
        return b;
    }
  }

 private:
  int64_t ids_;
  std::vector<std::string>& out_;

  static void add(Balance& into, const Balance& b) {
    for (const auto& [k, v] : b) into[k] += v;
  }
  static std::string flagKey(Pipe src, Pipe dst, const Expr& id) {
    return fmt::format("{} id {}", hardEventName(src, dst), printExpr(id));
  }
  void checkId(Pipe src, Pipe dst, const Expr& id, SourceLoc loc, const char* what) {
    auto iv = bound(id);
    if (!iv)
      out_.push_back(fmt::format("line {}: {} {} has an id that cannot be bounded: {}", loc.line,
                                 what, hardEventName(src, dst), printExpr(id)));
    else if (iv->lo < 0 || iv->hi >= ids_)
      out_.push_back(fmt::format("line {}: {} {} id {} ranges over [{}, {}], outside 0..{}",
                                 loc.line, what, hardEventName(src, dst), printExpr(id), iv->lo,
                                 iv->hi, ids_ - 1));
  }
};

}  // namespace

std::vector<std::string> verifyLoweredSync(const Kernel& kernel, int64_t idsPerHardEvent) {
  std::vector<std::string> out;
  Checker c(idsPerHardEvent, out);
  Balance total = c.walk(kernel.body);
  for (const auto& [ev, n] : total)
    if (n != 0)
      out.push_back(fmt::format("kernel {}: {} {} flag(s) {} at the end of the kernel", kernel.name,
                                std::abs(n), ev, n > 0 ? "left set" : "waited without a set"));
  return out;
}

}  // namespace tilesched::transform
