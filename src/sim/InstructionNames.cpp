// Names of instructions and of their kinds for reports, traces and
// timelines (see Simulator.h): opKindName, instructionName ("T.copy A ->
// a_ub") and instructionLabel ("copy A→a_ub").
// Assumes: nothing beyond a well-formed statement. Guarantees: a name depends
// only on the statement (buffers, operations), never on run-time values.
#include "sim/Simulator.h"

#include <fmt/format.h>

#include "ir/Functor.h"
#include "ir/IROperator.h"

namespace tilesched::sim {

using namespace ir;

const char* opKindName(OpKind k) {
  static const char* kNames[kNumOpKinds] = {"load (GM->UB/L1)", "store (UB->GM/L1)",
                                            "L1->L0",           "fixpipe",
                                            "cube gemm",        "vector",
                                            "reduce",           "fill",
                                            "VF region",        "scalar",
                                            "set_flag",         "wait_flag",
                                            "barrier"};
  return kNames[static_cast<size_t>(k)];
}

namespace {

std::string regionName(const Region& r) { return r.buffer->name; }

}  // namespace

std::string instructionName(const StmtNode* s) {
  switch (s->kind) {
    case StmtKind::Copy: {
      const auto* c = static_cast<const CopyStmt*>(s);
      return fmt::format("T.{} {} -> {}", c->dual == CopyStmt::Dual::None ? "copy" : "dual_copy",
                         regionName(c->src), regionName(c->dst));
    }
    case StmtKind::Gemm: {
      const auto* g = static_cast<const GemmStmt*>(s);
      return fmt::format("T.gemm {}, {} -> {}", regionName(g->a), regionName(g->b),
                         regionName(g->c));
    }
    case StmtKind::Fill:
      return "T.fill " + regionName(static_cast<const FillStmt*>(s)->dst);
    case StmtKind::Reduce: {
      const auto* r = static_cast<const ReduceStmt*>(s);
      return fmt::format("T.reduce_{} {} -> {}", reduceKindName(r->reduceKind), regionName(r->src),
                         regionName(r->dst));
    }
    case StmtKind::Parallel: {
      std::string target;
      forEachStmt(static_cast<const ParallelStmt*>(s)->body, [&](const Stmt& x) {
        if (const auto* st = as<StoreStmt>(x); st && target.empty()) target = st->buffer->name;
      });
      return "T.Parallel -> " + (target.empty() ? std::string("?") : target);
    }
    case StmtKind::VFRegion:
      return static_cast<const VFRegionStmt*>(s)->simt ? "T.SimtVF" : "T.SimdVF";
    case StmtKind::Store:
      return "store " + static_cast<const StoreStmt*>(s)->buffer->name;
    case StmtKind::Assign:
      return "assign " + static_cast<const AssignStmt*>(s)->var->name;
    case StmtKind::For:
      return "for " + static_cast<const ForStmt*>(s)->var->name;
    case StmtKind::If:
      return "if";
    case StmtKind::SetFlag:
      return "T.set_flag";
    case StmtKind::WaitFlag:
      return "T.wait_flag";
    case StmtKind::Barrier:
      return "T.pipe_barrier";
    default:
      return "?";
  }
}

namespace {

// The operation a T.Parallel store computes, by its outermost operator
// (casts looked through): what a reader of a timeline needs to tell the
// vector instructions of a body apart.
std::string operationName(const Expr& e) {
  if (!e) return "move";
  switch (e->kind) {
    case ExprKind::Cast:
      return e->operands.empty() ? "cast" : operationName(e->operands[0]);
    case ExprKind::Binary:
      switch (e->binOp) {
        case BinOp::Add:
          return "add";
        case BinOp::Sub:
          return "sub";
        case BinOp::Mul:
          return "mul";
        case BinOp::Div:
          return "div";
        case BinOp::FloorDiv:
          return "floordiv";
        case BinOp::FloorMod:
          return "mod";
        case BinOp::Min:
          return "min";
        case BinOp::Max:
          return "max";
        case BinOp::And:
        case BinOp::Or:
          return "logic";
        case BinOp::BitAnd:
          return "and";
        case BinOp::BitOr:
          return "or";
        case BinOp::BitXor:
          return "xor";
        case BinOp::Shl:
          return "shl";
        case BinOp::Shr:
          return "shr";
        default:
          return "compare";
      }
    case ExprKind::Unary:
      switch (e->unOp) {
        case UnOp::Neg:
          return "neg";
        case UnOp::Not:
          return "not";
        case UnOp::Abs:
          return "abs";
        case UnOp::Exp:
          return "exp";
        case UnOp::Log:
          return "log";
        case UnOp::Sqrt:
          return "sqrt";
        case UnOp::Rsqrt:
          return "rsqrt";
        case UnOp::Tanh:
          return "tanh";
        case UnOp::Sigmoid:
          return "sigmoid";
      }
      return "unary";
    case ExprKind::Select:
      return "select";
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
      return "set";
    default:
      return "move";
  }
}

}  // namespace

std::string instructionLabel(const StmtNode* s) {
  switch (s->kind) {
    case StmtKind::Copy: {
      const auto* c = static_cast<const CopyStmt*>(s);
      return fmt::format("{} {}\u2192{}", c->dual == CopyStmt::Dual::None ? "copy" : "dual_copy",
                         regionName(c->src), regionName(c->dst));
    }
    case StmtKind::Gemm: {
      const auto* g = static_cast<const GemmStmt*>(s);
      return fmt::format("gemm {},{}\u2192{}", regionName(g->a), regionName(g->b),
                         regionName(g->c));
    }
    case StmtKind::Fill:
      return "fill " + regionName(static_cast<const FillStmt*>(s)->dst);
    case StmtKind::Reduce: {
      const auto* r = static_cast<const ReduceStmt*>(s);
      return fmt::format("reduce_{} {}\u2192{}", reduceKindName(r->reduceKind), regionName(r->src),
                         regionName(r->dst));
    }
    case StmtKind::Parallel: {
      const StoreStmt* first = nullptr;
      forEachStmt(static_cast<const ParallelStmt*>(s)->body, [&](const Stmt& x) {
        if (const auto* st = as<StoreStmt>(x); st && !first) first = st;
      });
      if (!first) return "parallel";
      return operationName(first->value) + "\u2192" + first->buffer->name;
    }
    case StmtKind::VFRegion:
      return static_cast<const VFRegionStmt*>(s)->simt ? "SimtVF" : "SimdVF";
    default:
      return "";
  }
}

}  // namespace tilesched::sim
