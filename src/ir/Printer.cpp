#include "ir/Printer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "ir/IROperator.h"

namespace tilesched::ir {

namespace {

std::string floatLiteral(double v) {
  if (std::isnan(v)) return "T.float32(\"nan\")";
  if (std::isinf(v)) return v > 0 ? "T.infinity(\"float32\")" : "-T.infinity(\"float32\")";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// Python operator precedence, higher binds tighter.
int precedence(const Expr& e) {
  if (e->kind == ExprKind::Binary) {
    switch (e->binOp) {
      case BinOp::Or:
        return 1;
      case BinOp::And:
        return 2;
      case BinOp::EQ:
      case BinOp::NE:
      case BinOp::LT:
      case BinOp::LE:
      case BinOp::GT:
      case BinOp::GE:
        return 4;
      case BinOp::BitOr:
        return 5;
      case BinOp::BitXor:
        return 6;
      case BinOp::BitAnd:
        return 7;
      case BinOp::Shl:
      case BinOp::Shr:
        return 8;
      case BinOp::Add:
      case BinOp::Sub:
        return 10;
      case BinOp::Mul:
      case BinOp::Div:
      case BinOp::FloorDiv:
      case BinOp::FloorMod:
        return 11;
      case BinOp::Min:
      case BinOp::Max:
        return 20;
    }
  }
  if (e->kind == ExprKind::Unary) {
    if (e->unOp == UnOp::Not) return 3;
    if (e->unOp == UnOp::Neg) return 12;
    return 20;
  }
  if (e->kind == ExprKind::IntImm && e->intValue < 0) return 12;
  if (e->kind == ExprKind::FloatImm && e->floatValue < 0) return 12;
  return 20;
}

class Printer {
 public:
  std::string varName(const Var& v) {
    auto it = varNames_.find(v->id);
    if (it != varNames_.end()) return it->second;
    // Vars that share a name get `_1`, `_2`, ... in first-use order; a suffixed
    // name that is already taken (by a var the user called `j_1`) is skipped,
    // and so is a buffer's name.
    std::string name = v->name;
    int& next = nameCount_[v->name];
    while (takenNames_.count(name)) name = v->name + "_" + std::to_string(++next);
    takenNames_.insert({name, true});
    varNames_[v->id] = name;
    return name;
  }

  void reserve(const std::string& name) { takenNames_.insert({name, true}); }

  std::string expr(const Expr& e, int parentPrec = 0) {
    std::string s = exprNoParens(e);
    return precedence(e) < parentPrec ? "(" + s + ")" : s;
  }

  std::string exprNoParens(const Expr& e) {
    if (!e) return "<null>";
    switch (e->kind) {
      case ExprKind::IntImm:
        if (e->dtype == DType::Bool) return e->intValue ? "True" : "False";
        if (e->dtype == DType::Int32) return std::to_string(e->intValue);
        return fmt::format("T.{}({})", dtypeName(e->dtype), e->intValue);
      case ExprKind::FloatImm:
        if (e->dtype == DType::Float32) return floatLiteral(e->floatValue);
        return fmt::format("T.{}({})", dtypeName(e->dtype), floatLiteral(e->floatValue));
      case ExprKind::VarRef:
        return varName(e->var);
      case ExprKind::Load:
        return bufferAccess(e->buffer, e->operands);
      case ExprKind::Cast:
        return fmt::format("T.cast({}, \"{}\")", expr(e->operands[0]), dtypeName(e->dtype));
      case ExprKind::Select:
        return fmt::format("T.if_then_else({}, {}, {})", expr(e->operands[0]), expr(e->operands[1]),
                           expr(e->operands[2]));
      case ExprKind::Unary:
        if (e->unOp == UnOp::Neg || e->unOp == UnOp::Not)
          return std::string(unOpName(e->unOp)) + expr(e->operands[0], precedence(e) + 0);
        return fmt::format("{}({})", unOpName(e->unOp), expr(e->operands[0]));
      case ExprKind::Binary: {
        if (e->binOp == BinOp::Min || e->binOp == BinOp::Max)
          return fmt::format("{}({}, {})", binOpSpelling(e->binOp), expr(e->operands[0]),
                             expr(e->operands[1]));
        int p = precedence(e);
        // Left-associative: the right operand needs parentheses at equal precedence.
        // Comparisons do not chain in our IR, so both sides get them there.
        int rightPrec = p + 1;
        int leftPrec = p == 4 ? p + 1 : p;
        // `x + -512` reads better as `x - 512` (and `x - -2` as `x + 2`).
        if (auto c = asConstInt(e->operands[1]);
            c && *c < 0 && *c != INT64_MIN && (e->binOp == BinOp::Add || e->binOp == BinOp::Sub) &&
            e->operands[1]->dtype == DType::Int32)
          return fmt::format("{} {} {}", expr(e->operands[0], leftPrec),
                             e->binOp == BinOp::Add ? "-" : "+", -*c);
        return fmt::format("{} {} {}", expr(e->operands[0], leftPrec), binOpSpelling(e->binOp),
                           expr(e->operands[1], rightPrec));
      }
    }
    return "<?>";
  }

  std::string bufferAccess(const Buffer& b, const std::vector<Expr>& idx) {
    std::string s = b->name + "[";
    for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + expr(idx[i]);
    return s + "]";
  }

  std::string region(const Region& r) {
    auto shape = constShape(r.buffer);
    bool whole = shape && shape->size() == r.ranges.size();
    for (size_t i = 0; whole && i < r.ranges.size(); ++i)
      whole = isConstInt(r.ranges[i].min, 0) && r.ranges[i].extent == (*shape)[i];
    if (whole) return r.buffer->name;
    std::string s = r.buffer->name + "[";
    for (size_t i = 0; i < r.ranges.size(); ++i) {
      const Range& rg = r.ranges[i];
      s += i ? ", " : "";
      if (rg.extent == 1) {
        s += expr(rg.min);
      } else {
        s += expr(rg.min) + ":" + expr(add(rg.min, rg.extent));
      }
    }
    return s + "]";
  }

  void line(const std::string& text) { out_ << std::string(indent_ * 4, ' ') << text << "\n"; }

  void block(const Stmt& s) {
    ++indent_;
    if (!s || (as<SeqStmt>(s) && as<SeqStmt>(s)->stmts.empty()))
      line("pass");
    else
      stmt(s);
    --indent_;
  }

  std::string loopHeader(const ForStmt& f) {
    std::string v = varName(f.var);
    std::vector<std::string> annos;
    if (f.enableOffset) annos.push_back("\"enable_offset\": True");
    if (!f.eligible.empty()) {
      std::string list;
      for (const auto& b : f.eligible) list += (list.empty() ? "" : ", ") + b->name;
      annos.push_back("\"multi_buffer_eligible\": [" + list + "]");
    }
    std::string annoText;
    if (!annos.empty()) {
      annoText = ", annotations={";
      for (size_t i = 0; i < annos.size(); ++i) annoText += (i ? ", " : "") + annos[i];
      annoText += "}";
    }
    std::string range =
        isConstInt(f.min, 0) ? expr(f.extent) : expr(f.min) + ", " + expr(add(f.min, f.extent));
    switch (f.forKind) {
      case ForKind::Serial:
        return fmt::format("for {} in T.serial({}{}):", v, range, annoText);
      case ForKind::Unroll:
        return fmt::format("for {} in T.unroll({}):", v, range);
      case ForKind::Pipelined:
        return fmt::format("for {} in T.Pipelined({}, num_stages={}{}):", v, range, f.numStages,
                           annoText);
      case ForKind::Persistent:
        return fmt::format("with T.Persistent({}, num_stages={}{}) as {}:", range, f.numStages,
                           annoText, v);
    }
    return "";
  }

  // `with T.Cube():` / `with T.Vector(vector=N) as sid:` (an `if` over the
  // kernel's core variable, IfStmt::coreScope).
  void coreScope(const IfStmt& i) {
    if (i.coreScope == CoreScope::Cube) {
      line("with T.Cube():");
    } else if (!kernel_ || !kernel_->manualCores) {
      line("with T.Vector() as sid:");
    } else {
      const auto& mc = *kernel_->manualCores;
      line(fmt::format("with T.Vector(vector={}) as {}:", mc.vectorCores, varName(mc.sid)));
    }
    block(i.thenBody);
  }

  // A statement of a `with T.Stage(k):` block prints inside one; consecutive
  // statements of one stage share it.
  void stmt(const Stmt& s) {
    if (!s) return;
    if (int32_t stage = stageToOpen(s); stage >= 0)
      inStage(stage, [&] { stmtInStage(s); });
    else
      stmtInStage(s);
  }

  // The T.Stage block `s` needs opened around it, or -1.
  int32_t stageToOpen(const Stmt& s) const {
    return printStages_ && s && s->manualStage >= 0 && s->manualStage != openStage_ ? s->manualStage
                                                                                    : -1;
  }

  template <class F>
  void inStage(int32_t stage, F&& body) {
    line(fmt::format("with T.Stage({}):", stage));
    int32_t outer = openStage_;
    openStage_ = stage;
    ++indent_;
    body();
    --indent_;
    openStage_ = outer;
  }

  void stmtInStage(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::Seq: {
        const auto& list = as<SeqStmt>(s)->stmts;
        for (size_t i = 0; i < list.size();) {
          int32_t stage = stageToOpen(list[i]);
          if (stage < 0) {
            stmt(list[i++]);
            continue;
          }
          inStage(stage, [&] {
            for (; i < list.size() && list[i] && list[i]->manualStage == stage; ++i) stmt(list[i]);
          });
        }
        return;
      }
      case StmtKind::For: {
        const auto& f = *as<ForStmt>(s);
        line(loopHeader(f));
        block(f.body);
        return;
      }
      case StmtKind::If: {
        const auto* i = as<IfStmt>(s);
        if (i->coreScope != CoreScope::None) {
          coreScope(*i);
          return;
        }
        line("if " + expr(i->cond) + ":");
        block(i->thenBody);
        // Print `elif` chains flat, as the author wrote them.
        while (i->elseBody) {
          if (const auto* nested = as<IfStmt>(i->elseBody)) {
            line("elif " + expr(nested->cond) + ":");
            block(nested->thenBody);
            i = nested;
            continue;
          }
          line("else:");
          block(i->elseBody);
          break;
        }
        return;
      }
      case StmtKind::Assign: {
        const auto& a = *as<AssignStmt>(s);
        if (a.var->assumption) {
          line(fmt::format("T.assume({})", expr(a.value)));
          return;
        }
        if (a.var->running && declaredRunning_.insert(a.var->id).second) {
          line(fmt::format("{} = T.alloc_var(\"{}\", init={})", varName(a.var),
                           dtypeName(a.var->dtype), expr(a.value)));
          return;
        }
        line(varName(a.var) + " = " + expr(a.value));
        return;
      }
      case StmtKind::Store: {
        const auto& st = *as<StoreStmt>(s);
        if (st.atomic != AtomicOp::None && st.value->operands.size() == 2) {
          // value is `dst op v`: print the call that wrote it.
          line(fmt::format("{}T.atomic_{}({}, {}{})", st.prev ? varName(st.prev) + " = " : "",
                           atomicOpName(st.atomic), bufferAccess(st.buffer, st.indices),
                           expr(st.value->operands[1]), st.prev ? ", return_prev=True" : ""));
          return;
        }
        line(bufferAccess(st.buffer, st.indices) + " = " + expr(st.value));
        return;
      }
      case StmtKind::Copy: {
        const auto& c = *as<CopyStmt>(s);
        std::string kw;
        for (const auto& [k, v] : c.kwargs) kw += ", " + k + "=" + v;
        if (c.padValue) kw += ", pad_value=" + expr(c.padValue);
        if (c.transpose) kw += ", transpose=True";
        // An atomic store prints inside its own T.set_atomic ... T.set_atomic_none().
        if (c.atomic != AtomicOp::None)
          line(fmt::format("T.set_atomic(\"{}\", \"{}\")", atomicOpName(c.atomic),
                           dtypeName(c.dst.buffer->dtype)));
        line(fmt::format("T.{}({}, {}{})  # {}",
                         c.dual == CopyStmt::Dual::None ? "copy" : "dual_copy", region(c.src),
                         region(c.dst), kw, pipeName(c.pipe)));
        if (c.atomic != AtomicOp::None) line("T.set_atomic_none()");
        return;
      }
      case StmtKind::Gemm: {
        const auto& g = *as<GemmStmt>(s);
        std::string kw;
        if (g.transA) kw += ", transpose_A=True";
        if (g.transB) kw += ", transpose_B=True";
        if (g.clearAccum && !isConstInt(g.clearAccum, 0))
          kw += ", clear_accum=" + expr(g.clearAccum);
        line(fmt::format("T.gemm({}, {}, {}{})  # {}", region(g.a), region(g.b), region(g.c), kw,
                         g.hasL1Operands() ? "MTE1+M" : "M"));
        return;
      }
      case StmtKind::Fill: {
        const auto& f = *as<FillStmt>(s);
        line(fmt::format("T.fill({}, {})  # {}", region(f.dst), expr(f.value), pipeName(f.pipe)));
        return;
      }
      case StmtKind::Reduce: {
        const auto& r = *as<ReduceStmt>(s);
        line(fmt::format("T.reduce_{}({}, {}, dim={}{})", reduceKindName(r.reduceKind),
                         region(r.src), region(r.dst), r.dim, r.clear ? "" : ", clear=False"));
        return;
      }
      case StmtKind::Parallel: {
        const auto& p = *as<ParallelStmt>(s);
        std::string vars, extents;
        for (size_t i = 0; i < p.vars.size(); ++i) {
          vars += (i ? ", " : "") + varName(p.vars[i]);
          extents += (i ? ", " : "") + std::to_string(p.extents[i]);
        }
        line(fmt::format("for {} in T.Parallel({}):", vars, extents));
        block(p.body);
        return;
      }
      case StmtKind::VFRegion: {
        const auto& v = *as<VFRegionStmt>(s);
        std::string args;
        if (v.simt) args = "threads=" + std::to_string(v.threads);
        if (v.latency)
          args += (args.empty() ? "" : ", ") + ("latency=" + std::to_string(*v.latency));
        line(fmt::format("with T.{}({}):", v.simt ? "SimtVF" : "SimdVF", args));
        block(v.body);
        return;
      }
      case StmtKind::SetFlag: {
        const auto& f = *as<SetFlagStmt>(s);
        if (f.crossCore()) {
          line(fmt::format("T.ascend_cross_core_set_flag({}, \"PIPE_{}\", {})", f.crossCoreMode,
                           pipeName(f.src), expr(f.eventId)));
          return;
        }
        line(fmt::format("T.set_flag(\"{}\", \"{}\", {})", pipeName(f.src), pipeName(f.dst),
                         expr(f.eventId)));
        return;
      }
      case StmtKind::WaitFlag: {
        const auto& f = *as<WaitFlagStmt>(s);
        if (f.crossCore()) {
          line(fmt::format("T.ascend_cross_core_wait_flag({}, \"PIPE_{}\", {})", f.crossCoreMode,
                           pipeName(f.dst), expr(f.eventId)));
          return;
        }
        line(fmt::format("T.wait_flag(\"{}\", \"{}\", {})", pipeName(f.src), pipeName(f.dst),
                         expr(f.eventId)));
        return;
      }
      case StmtKind::Barrier: {
        const auto& b = *as<BarrierStmt>(s);
        line(fmt::format("T.pipe_barrier(\"{}\")", b.all ? "ALL" : pipeName(b.pipe)));
        return;
      }
    }
  }

  std::string allocCall(const Buffer& b) {
    std::string shape = printShape(b->shape);
    switch (b->storage->scope) {
      case MemScope::UB:
        return fmt::format("T.{}({}, \"{}\")",
                           b->storage->spelledAllocUb ? "alloc_ub" : "alloc_shared", shape,
                           dtypeName(b->dtype));
      case MemScope::L1:
        return fmt::format("T.alloc_l1({}, \"{}\")", shape, dtypeName(b->dtype));
      case MemScope::L0A:
        return fmt::format("T.alloc_l0a({}, \"{}\")", shape, dtypeName(b->dtype));
      case MemScope::L0B:
        return fmt::format("T.alloc_l0b({}, \"{}\")", shape, dtypeName(b->dtype));
      case MemScope::L0C:
        return fmt::format("T.alloc_l0c({}, \"{}\")", shape, dtypeName(b->dtype));
      case MemScope::Fragment:
        return fmt::format("T.alloc_fragment({}, \"{}\")", shape, dtypeName(b->dtype));
      case MemScope::LocalVar:
        return fmt::format("T.alloc_var(\"{}\")", dtypeName(b->dtype));
      case MemScope::Local:
        return fmt::format("T.alloc_local({}, \"{}\")", shape, dtypeName(b->dtype));
      case MemScope::Global:
        return fmt::format("T.Tensor({}, \"{}\")", shape, dtypeName(b->dtype));
    }
    return "";
  }

  std::string aliasTarget(const Buffer& b, const Kernel& k) {
    for (const auto& other : k.buffers)
      if (other->storage == b->storage && !other->isAlias) return other->name;
    return b->storage->name;
  }

  std::string versionValue(const VersionSpec& v) {
    if (v.count && v.mode) return fmt::format("({}, \"{}\")", *v.count, versionModeName(*v.mode));
    if (v.count) return std::to_string(*v.count);
    if (v.mode) return fmt::format("\"{}\"", versionModeName(*v.mode));
    return "\"auto\"";
  }

  // Versions start at aligned addresses (BufferNode::versionStrideBytes);
  // where that pads them, the file says so: read back as written they are
  // dense, which the simulator runs the same but the hardware's DMA would not.
  void paddedVersionsNote(const VersionedStorage& v) {
    if (!v.buffer || v.buffer->versionStrideBytes <= 0) return;
    int64_t dense = dtypeBytes(v.buffer->dtype);
    for (size_t d = 1; d < v.buffer->shape.size(); ++d) {
      auto c = asConstInt(v.buffer->shape[d]);
      if (!c) return;
      dense *= *c;
    }
    if (v.buffer->versionStrideBytes == dense) return;
    line(
        fmt::format("# '{}': versions start aligned, {} bytes apart ({} used); read back as "
                    "written they are dense",
                    v.buffer->name, v.buffer->versionStrideBytes, dense));
  }

  void annotations(const Kernel& k) {
    const auto& a = k.annotations;
    if (!a.selectedVersions.empty()) {
      // A lowered kernel's versioned buffers already carry their version
      // dimension: naming them again would version them twice when the
      // printed kernel is read back; a comment says what they got.
      std::string map, materialised;
      for (const auto& [st, n] : a.selectedVersions) {
        auto mode = a.writtenBackMode(st, n);
        std::string value =
            mode ? fmt::format("({}, \"{}\")", n, versionModeName(*mode)) : std::to_string(n);
        bool versioned = std::any_of(a.versioned.begin(), a.versioned.end(),
                                     [&](const VersionedStorage& v) { return v.storage == st; });
        std::string& into = versioned ? materialised : map;
        into += (into.empty() ? "" : ", ") + st->name + ": " + value;
      }
      if (!materialised.empty())
        line("# materialised versions: {" + materialised + "} (the leading dimension)");
      for (const auto& v : a.versioned) paddedVersionsNote(v);
      if (!map.empty()) line("T.annotate_buffer_versions({" + map + "})");
    } else if (!a.bufferVersions.empty()) {
      std::string map;
      for (const auto& v : a.bufferVersions)
        map += (map.empty() ? "" : ", ") + v.buffer->name + ": " + versionValue(v);
      line("T.annotate_buffer_versions({" + map + "})");
    }
    if (!a.manual.empty()) {
      std::string items;
      for (const auto& m : a.manual)
        items += (items.empty() ? "" : ", ") + fmt::format("{{{}: {}}}", m.buffer->name, m.ring);
      line("T.annotate_manual_multi_buffer(" + items + ")");
    }
    if (!a.unlimited.empty()) {
      std::string items;
      for (auto s : a.unlimited)
        items += (items.empty() ? "\"" : ", \"") + std::string(memScopeName(s)) + "\"";
      line("T.annotate_unlimit_memory(" + items + ")");
    }
  }

  // `launchOnly`: just the `with T.Kernel` block, for the second and later
  // launches of a prim_func printed under the first one's `def`.
  std::string kernel(const Kernel& k, const std::string& fileName, bool launchOnly = false) {
    out_.str("");
    kernel_ = &k;
    declaredRunning_.clear();
    printStages_ = !k.lowered;
    for (const auto& b : k.buffers) reserve(b->name);
    if (launchOnly) {
      ++indent_;
      launchBlock(k);
      --indent_;
      return out_.str();
    }
    const std::string& file = k.loc.file ? k.loc.file->path() : fileName;
    std::string where = file.empty() ? "" : fmt::format(", {}:{}", file, k.loc.line);
    std::string launches =
        k.numLaunches > 1 ? fmt::format(", launch {} of {}", k.launch, k.numLaunches) : "";
    line(fmt::format("# kernel {}{}{}{}", k.name,
                     k.factory.empty() ? "" : " (factory " + k.factory + ")", launches, where));
    // The kernel's T.dynamic sizes are names of the printed file, so a shape
    // `(m, 256)` and a body `T.serial(m // 4)` read back the same variable.
    for (const auto& dv : k.dynamicVars)
      line(fmt::format(
          "{} = T.dynamic(\"{}\"{})", varName(dv), dv->name,
          dv->dtype == DType::Int32 ? "" : fmt::format(", \"{}\"", dtypeName(dv->dtype))));
    line("@T.prim_func");
    std::string params;
    for (const auto& p : k.params) {
      params += params.empty() ? "" : ", ";
      if (p.buffer && !p.buffer->strides.empty())
        params +=
            fmt::format("{}: T.StridedTensor({}, {}, \"{}\")", p.name, printShape(p.buffer->shape),
                        printShape(p.buffer->strides), dtypeName(p.buffer->dtype));
      else if (p.buffer)
        params += fmt::format("{}: T.Tensor({}, \"{}\")", p.name, printShape(p.buffer->shape),
                              dtypeName(p.buffer->dtype));
      else
        params += fmt::format("{}: T.{}", varName(p.var), dtypeName(p.var->dtype));
    }
    line(fmt::format("def {}({}):", k.primFuncName(), params));
    ++indent_;
    launchBlock(k);
    --indent_;
    return out_.str();
  }

  void launchBlock(const Kernel& k) {
    std::string kw;
    for (const auto& [key, value] : k.kernelKwargs) kw += ", " + key + "=" + value;
    if (k.vectorCores == 1)
      line(fmt::format("with T.MixedKernel({}, sids=1{}) as ({}, {}):", k.grid, kw,
                       varName(k.blockIdx), k.sidName));
    else
      line(fmt::format("with T.Kernel({}{}) as {}:", k.grid, kw, varName(k.blockIdx)));
    ++indent_;
    for (const auto& b : k.buffers) {
      if (b->storage->scope == MemScope::Global && !b->isAlias) continue;  // a parameter
      if (b->isAlias)
        line(fmt::format("{} = T.view({}, {}, \"{}\")", b->name, aliasTarget(b, k),
                         printShape(b->shape), dtypeName(b->dtype)));
      else
        line(b->name + " = " + allocCall(b));
    }
    annotations(k);
    for (const auto& a : k.assumptions) line(fmt::format("T.assume({})", expr(a.cond)));
    if (!k.body || (as<SeqStmt>(k.body) && as<SeqStmt>(k.body)->stmts.empty())) line("pass");
    stmt(k.body);
    --indent_;
  }

  std::ostringstream out_;
  std::set<int> declaredRunning_;  // running scalars already printed as T.alloc_var
  int indent_ = 0;
  int32_t openStage_ = -1;  // the T.Stage block being printed, -1: none
  bool printStages_ = true;
  const Kernel* kernel_ = nullptr;  // the kernel being printed (null: a lone statement)

 private:
  std::map<int, std::string> varNames_;
  std::map<std::string, int> nameCount_;
  std::map<std::string, bool> takenNames_;
};

}  // namespace

std::string printShape(const std::vector<Expr>& shape) {
  Printer p;
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + p.expr(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string printExpr(const Expr& e) {
  Printer p;
  return p.expr(e);
}

std::string printStmt(const Stmt& s) {
  Printer p;
  p.stmt(s);
  return p.out_.str();
}

std::string printStmtFirstLine(const Stmt& s, size_t maxChars) {
  std::string text = printStmt(s);
  auto nl = text.find('\n');
  if (nl != std::string::npos) text.erase(nl);
  while (!text.empty() && text.front() == ' ') text.erase(text.begin());
  auto comment = text.find("  # ");
  if (comment != std::string::npos) text.erase(comment);
  if (text.size() > maxChars) text = text.substr(0, maxChars - 3) + "...";
  return text;
}

std::string printRegion(const Region& r) {
  Printer p;
  return p.region(r);
}

std::string printKernel(const Kernel& k, const std::string& fileName) {
  Printer p;
  return p.kernel(k, fileName);
}

std::string printProgram(const Program& prog) {
  // The import makes the output a kernel file the front end reads back.
  std::string out = "import tilelang.language as T\n";
  // Later launches of a prim_func print as further `with T.Kernel` blocks of
  // the first launch's `def`, so the file reads back as the same launches.
  for (const auto& k : prog.kernels) {
    if (k.launch > 0) {
      Printer p;
      out += p.kernel(k, "", /*launchOnly=*/true);
      continue;
    }
    out += "\n" + printKernel(k, prog.file ? prog.file->path() : "");
  }
  return out;
}

std::string printBufferTable(const Kernel& k) {
  std::string out = fmt::format("{:<16} {:<15} {:<9} {:<16} {:>9}  {}\n", "buffer", "scope",
                                "dtype", "shape", "bytes", "storage");
  for (const auto& b : k.buffers) {
    std::string shape = printShape(b->shape);
    std::string bytes = b->storage->bytes > 0 && !b->isAlias ? std::to_string(b->storage->bytes)
                                                             : (b->isAlias ? "-" : "?");
    std::string storage = b->isAlias ? "alias of " + b->storage->name : "own";
    out += fmt::format("{:<16} {:<15} {:<9} {:<16} {:>9}  {}\n", b->name,
                       memScopeName(b->storage->scope), dtypeName(b->dtype), shape, bytes, storage);
  }
  return out;
}

}  // namespace tilesched::ir
