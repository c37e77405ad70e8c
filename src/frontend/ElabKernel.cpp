// Elaboration of kernel bodies: prim_func parameters, `with T.Kernel`,
// statements (assignments, stores, loops, `with` blocks, VF regions, `if`),
// allocations and views, macro inlining, name scopes. Expects values from the
// evaluator (HostEval.cpp); guarantees IR that ir/Verifier.h accepts, with
// every user error located at its construct.
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/ConstantBounds.h"
#include "frontend/ElaboratorImpl.h"
#include "frontend/ManualRings.h"
#include "frontend/NeverWritten.h"
#include "frontend/Parser.h"
#include "ir/Verifier.h"

namespace tilesched::frontend {

using K = Value::Kind;
using namespace ir;

// ------------------------------------------------------------ kernels

Value Elaborator::dynamicSize(const std::string& name) {
  for (const auto& v : kernel_->dynamicVars)
    if (v->name == name) return Value::irExpr(varRef(v));
  Var v = makeVar(name, DType::Int32, VarKind::Dynamic);
  kernel_->dynamicVars.push_back(v);
  return Value::irExpr(varRef(v));
}

Value Elaborator::resolveDynamic(const Value& v) {
  if (isDeferredDynamic(v)) return dynamicSize(v.elts[0].s);
  if (!v.isSequence()) return v;
  Value out = v;
  for (auto& e : out.elts) e = resolveDynamic(e);
  return out;
}

Var Elaborator::makeVar(const std::string& name, DType t, VarKind kind) {
  auto v = std::make_shared<VarNode>();
  v->id = nextId_++;
  v->name = name;
  v->dtype = t;
  v->kind = kind;
  return v;
}

std::string Elaborator::uniqueBufferName(const std::string& name) {
  // `a` twice gives `a`, `a_1`; a later buffer the user called `a_1` becomes
  // `a_1_1`. The map holds every name taken, with the next suffix to try.
  std::string out = name;
  int suffix = 1;
  if (auto it = bufferNames_.find(name); it != bufferNames_.end()) suffix = std::max(it->second, 1);
  while (bufferNames_.count(out)) out = name + "_" + std::to_string(suffix++);
  bufferNames_[name] = suffix;
  bufferNames_.emplace(out, 1);
  return out;
}

Buffer Elaborator::makeBuffer(const std::string& name, MemScope scope, DType dtype,
                              std::vector<Expr> shape, SourceLoc loc, Storage storage,
                              bool spelledAllocUb) {
  auto b = std::make_shared<BufferNode>();
  b->id = nextId_++;
  b->name = uniqueBufferName(name);
  b->dtype = dtype;
  b->shape = std::move(shape);
  b->loc = loc;
  if (storage) {
    b->storage = storage;
    b->isAlias = true;
  } else {
    auto st = std::make_shared<StorageNode>();
    st->id = nextId_++;
    st->name = b->name;
    st->scope = scope;
    st->loc = loc;
    st->spelledAllocUb = spelledAllocUb && scope == MemScope::UB;
    auto cs = constShape(b);
    int64_t elements = 1;
    for (int64_t d : cs.value_or(std::vector<int64_t>{}))
      if (__builtin_mul_overflow(elements, d, &elements) || elements > kMaxElements)
        fail(loc, fmt::format("'{}' may hold at most 2^40 elements", name));
    st->bytes = cs ? elements * dtypeBytes(dtype) : 0;
    b->storage = st;
    kernel_->storages.push_back(st);
  }
  kernel_->buffers.push_back(b);
  return b;
}

void Elaborator::buildPrimFunc(const py::Stmt& def, const std::shared_ptr<Env>& closure,
                               const std::string& factory) {
  // Each `with T.Kernel` block in the body is a separate kernel.
  std::vector<const py::Stmt*> kernelBlocks;
  for (const auto& s : def.body) {
    if (s->kind == py::StmtKind::With && !s->withItems.empty() &&
        dottedName(*s->withItems[0].context).find("Kernel") != std::string::npos) {
      kernelBlocks.push_back(s.get());
      continue;
    }
    bool harmless = s->kind == py::StmtKind::Pass || (s->kind == py::StmtKind::Expr && s->value &&
                                                      s->value->kind == py::ExprKind::Str);
    if (harmless || s->kind == py::StmtKind::Assign || isAssumeStatement(*s)) continue;
    if (s->kind == py::StmtKind::Unparsed)
      error(s->reasonLoc.valid() ? s->reasonLoc : s->loc, s->reason);
    else
      error(s->loc,
            "only 'with T.Kernel(...)' blocks and constants are supported in a @T.prim_func body");
  }
  if (kernelBlocks.empty()) {
    error(def.loc, fmt::format("kernel '{}' has no 'with T.Kernel(...)' block", def.name));
    return;
  }
  // The blocks are launches that run in order on shared global memory (ir::Kernel::launch).
  const size_t firstLaunch = kernels_.size();
  for (const py::Stmt* block : kernelBlocks) {
    Kernel k;
    kernels_.push_back(std::move(k));
    kernel_ = &kernels_.back();
    kernel_->name = def.name;
    kernel_->factory = factory;
    kernel_->loc = def.loc;
    bufferNames_.clear();
    auto env = std::make_shared<Env>();
    env->parent = closure;
    std::vector<KernelParam> params;
    size_t errorsBefore = diags_.numErrors();
    for (const auto& p : def.params) {
      try {
        if (p.varArgs || p.varKwargs)
          fail(p.loc, "'*args' and '**kwargs' are not supported in a kernel signature");
        if (!p.annotation)
          fail(p.loc,
               fmt::format(
                   "kernel parameter '{}' needs a type: T.Tensor(shape, dtype) or a scalar dtype",
                   p.name));
        Value ann = eval(*p.annotation, *env);
        KernelParam kp;
        kp.name = p.name;
        kp.loc = p.loc;
        if (ann.kind == K::DType) {
          kp.var = makeVar(p.name, toDType(ann, p.loc), VarKind::Param);
          env->bind(p.name, Value::irExpr(varRef(kp.var)));
        } else if (ann.kind == K::Opaque && (ann.s == "T.Tensor" || ann.s == "T.StridedTensor")) {
          if (ann.s == "T.Tensor" && ann.elts.size() != 2)
            fail(p.annotation->loc,
                 "T.Tensor needs a shape and a dtype: T.Tensor((M, N), \"float16\")");
          auto shape = tensorDims(ann.elts[0], p.annotation->loc, "tensor dimensions");
          kp.buffer = makeBuffer(p.name, MemScope::Global, toDType(ann.elts[1], p.annotation->loc),
                                 shape, p.loc);
          if (ann.s == "T.StridedTensor")
            const_cast<BufferNode&>(*kp.buffer).strides =
                tensorStrides(ann.elts[2], shape, p.annotation->loc);
          if (auto r = inputsFromCall_.find(p.name); r != inputsFromCall_.end())
            kp.fromFile = r->second;
          env->bind(p.name, Value::buf(kp.buffer));
        } else {
          fail(p.annotation->loc,
               fmt::format("unsupported type for kernel parameter '{}'; use T.Tensor(shape, dtype) "
                           "or a scalar dtype such as T.float32",
                           p.name));
        }
        params.push_back(std::move(kp));
      } catch (const EvalError& e) {
        error(e.loc, e.message);
      }
    }
    if (diags_.numErrors() != errorsBefore) {
      kernels_.pop_back();
      kernel_ = nullptr;
      continue;
    }
    for (const auto& s : def.body)
      if ((s->kind == py::StmtKind::Assign && s->value) || isAssumeStatement(*s)) {
        try {
          if (isAssumeStatement(*s)) {
            elabAssume(*s->value, *env);  // T.assume before `with T.Kernel`
            continue;
          }
          simdNameHint_ = s->targets.size() == 1 && s->targets[0]->kind == py::ExprKind::Name
                              ? s->targets[0]->id
                              : "";
          Value v = eval(*s->value, *env);
          simdNameHint_.clear();
          for (const auto& t : s->targets) assignTargets(*t, v, *env, s->loc);
        } catch (const EvalError& e) {
          simdNameHint_.clear();
          reportFailedStatement(e, *s, *env);
        }
      }
    buildKernel(*block, def, *env, factory, std::move(params), {});
    if (diags_.numErrors() != errorsBefore) kernels_.pop_back();
    kernel_ = nullptr;
  }
  // Several launches of one prim_func get distinct names: main, main_1, ...
  const int numLaunches = static_cast<int>(kernels_.size() - firstLaunch);
  for (size_t i = firstLaunch; i < kernels_.size(); ++i) {
    Kernel& k = kernels_[i];
    k.launch = static_cast<int>(i - firstLaunch);
    k.numLaunches = numLaunches;
    if (k.launch > 0) k.name += "_" + std::to_string(k.launch);
  }
}

void Elaborator::buildKernel(const py::Stmt& withStmt, const py::Stmt&, Env& env,
                             const std::string&, std::vector<KernelParam> params,
                             std::vector<Buffer>) {
  Kernel& k = *kernel_;
  k.params = std::move(params);
  k.kernelLoc = withStmt.loc;
  const py::WithItem& item = withStmt.withItems[0];
  try {
    // `with T.Kernel(n) as bx, T.SimtVF(threads=K):` — the second item opens a
    // VF region around the whole body (checked below, once the grid is known).
    if (withStmt.withItems.size() > 2)
      fail(withStmt.withItems[2].context->loc,
           "'with T.Kernel(...)' takes at most one more item, a VF region: "
           "'with T.Kernel(n) as bx, T.SimtVF(threads=K):'");
    const py::Expr& call = *item.context;
    if (call.kind != py::ExprKind::Call) {
      Value named = eval(call, env);
      if (named.kind == K::DialectFn && named.s == "MixedKernel")
        fail(call.loc,
             "T.MixedKernel must be called: 'with T.MixedKernel(n, sids=1) as (bx, sid):'");
      fail(call.loc, "T.Kernel must be called: 'with T.Kernel(grid) as bx:'");
    }
    // Only T.Kernel launches a kernel; MixedKernel & co. must not pass as one.
    Value launcher = eval(*call.lhs, env);
    bool mixed = launcher.kind == K::DialectFn && launcher.s == "MixedKernel";
    if (!mixed && (launcher.kind != K::DialectFn || launcher.s != "Kernel")) {
      std::string name = dottedName(*call.lhs);
      fail(call.lhs->loc, fmt::format("'with {}(...)' does not launch a kernel; the launch is "
                                      "'with T.Kernel(n) as bx:'",
                                      name.empty() ? std::string("...") : name));
    }
    if (mixed) {
      mixedKernelLaunch(call, item, env, k);
      checkKeywords(call, "T.MixedKernel", {"sids", "threads", "is_npu", "prelude"});
    } else {
      checkKeywords(call, "T.Kernel", {"threads", "is_npu", "prelude"});
    }
    if (call.elts.size() != 1)
      fail(call.loc,
           call.elts.size() > 1
               ? "multi-dimensional grids are not supported; use a 1-D grid 'T.Kernel(n) as bx'"
               : "T.Kernel needs the grid size: 'T.Kernel(n) as bx'");
    Value grid = eval(*call.elts[0], env);
    if (grid.isSequence()) {
      if (grid.elts.size() != 1)
        fail(argLoc(call, 0),
             "multi-dimensional grids are not supported; use a 1-D grid 'T.Kernel(n) as bx'");
      grid = grid.elts[0];
    }
    k.gridLoc = argLoc(call, 0);
    k.grid = toConstInt(grid, argLoc(call, 0), "grid size");
    if (k.grid < 1)
      fail(argLoc(call, 0), fmt::format("grid size must be at least 1, got {}", k.grid));
    for (const auto& kw : call.keywords)
      if (kw.name != "sids") k.kernelKwargs.push_back({kw.name, kwargText(eval(*kw.value, env))});
    if (!mixed && !item.target) {  // mixedKernelLaunch bound its names
      // `with T.Kernel(n):` every block runs the same body; the index exists
      // in the IR (printed as `as bx`) but no name is bound to it.
      k.blockIdx = makeVar("bx", DType::Int32, VarKind::BlockIdx);
    } else if (!mixed) {
      if (item.target->kind != py::ExprKind::Name)
        fail(item.target->loc,
             "'as (cid, vid)' binds a vector sub-core index, which T.Kernel does not give: "
             "use 'as bx', or launch with 'T.MixedKernel(n, sids=1) as (bx, sid)'");
      k.blockIdx = makeVar(item.target->id, DType::Int32, VarKind::BlockIdx);
      env.bind(item.target->id, Value::irExpr(varRef(k.blockIdx)));
    }
  } catch (const EvalError& e) {
    error(e.loc, e.message);
    return;
  }
  std::vector<Stmt> body;
  BlockCtx ctx;
  ctx.out = &body;
  atomic_ = {};
  if (withStmt.withItems.size() == 2) {
    try {
      const py::WithItem& vf = withStmt.withItems[1];
      const py::Expr& vfCall = *vf.context;
      Value fn = vfCall.kind == py::ExprKind::Call ? eval(*vfCall.lhs, env) : eval(vfCall, env);
      std::string name = fn.kind == K::DialectFn ? fn.s : "";
      if (vfCall.kind != py::ExprKind::Call || (name != "SimtVF" && name != "SimdVF"))
        fail(vfCall.loc,
             "the item after 'T.Kernel(...)' in one 'with' must be a VF region: "
             "'with T.Kernel(n) as bx, T.SimtVF(threads=K):' or '..., T.SimdVF():'");
      if (vf.target)
        fail(vf.target->loc, fmt::format("'T.{}(...)' binds no name; drop 'as'", name));
      elabVFRegion(vfCall, name, withStmt.body, withStmt.loc, env, ctx);
    } catch (const EvalError& e) {
      error(e.loc, e.message);
    }
  } else {
    elabBlock(withStmt.body, env, ctx);
  }
  if (atomic_.op != AtomicOp::None)
    warning(atomic_.loc,
            "T.set_atomic is never cleared: every store to global memory up to the "
            "end of the kernel accumulates; end the atomic stores with "
            "T.set_atomic_none()");
  atomic_ = {};
  k.body = std::make_shared<SeqStmt>(std::move(body), withStmt.loc);
  checkManualCores(k);
}

void Elaborator::elabBlock(const py::StmtList& body, Env& env, BlockCtx& ctx) {
  for (const auto& s : body) {
    if (diags_.numErrors() >= DiagnosticEngine::kMaxErrors) return;
    try {
      size_t before = ctx.out ? ctx.out->size() : 0;
      elabStmt(*s, env, ctx);
      if (ctx.threads) wrapPerThread(ctx, before, s->loc);
    } catch (const EvalError& e) {
      reportFailedStatement(e, *s, env);
    }
  }
}

void Elaborator::elabScopedBlock(const py::StmtList& body, Env& env, BlockCtx& ctx,
                                 const std::string& what, SourceLoc loc, bool loop,
                                 std::vector<PendingScopeNote>* deferred) {
  NameScope scope;
  scope.env = &env;
  scope.saved = env.names;
  scope.what = what;
  scope.loc = loc;
  scope.loop = loop;
  scopes_.push_back(std::move(scope));
  size_t depth = scopes_.size();
  AtomicMode atomicBefore = atomic_;
  PadRegister padBefore = padRegister_;
  try {
    elabBlock(body, env, ctx);
  } catch (...) {
    scopes_.resize(depth - 1);
    throw;
  }
  if (padRegister_.value != padBefore.value) {
    SourceLoc setAt = padRegister_.loc;
    padRegister_ = padBefore;
    padRegister_.droppedAt = setAt;
  }
  // The atomic store mode is lexical: a body that changed it must restore it,
  // else the stores after the loop or branch would depend on its trip count.
  if (atomic_.op != atomicBefore.op || atomic_.dtype != atomicBefore.dtype) {
    error(atomic_.loc,
          fmt::format("{} changes the atomic store mode inside this {} and leaves it changed at "
                      "its end; arm T.set_atomic and clear it with T.set_atomic_none() in the "
                      "same {}, or around it",
                      atomic_.op == AtomicOp::None ? "T.set_atomic_none()" : "T.set_atomic", what,
                      what));
    atomic_ = atomicBefore;
  }
  NameScope done = std::move(scopes_.back());
  scopes_.pop_back();
  auto notes = closeScope(done);
  if (deferred)
    deferred->insert(deferred->end(), notes.begin(), notes.end());
  else
    applyScopeNotes(env, notes);
}

// Restores the names a scope's body bound or re-bound; warns where a loop body
// re-binds a name it read earlier in the same iteration (a running value
// written as a plain assignment). Returns the notes for later reads.
std::vector<PendingScopeNote> Elaborator::closeScope(NameScope& scope) {
  Env& env = *scope.env;
  std::vector<std::string> changed;
  for (const auto& [name, v] : env.names) {
    auto it = scope.saved.find(name);
    if (it == scope.saved.end() || it->second.serial != v.serial) changed.push_back(name);
  }
  for (const auto& [name, v] : scope.saved)
    if (!env.names.count(name)) changed.push_back(name);
  std::vector<PendingScopeNote> notes;
  for (const auto& name : changed) {
    auto cur = env.names.find(name);
    auto before = scope.saved.find(name);
    ScopeNote note;
    note.scope = scope.what;
    note.scopeLoc = scope.loc;
    if (cur != env.names.end()) {
      note.boundAt = cur->second.boundAt.valid() ? cur->second.boundAt : scope.loc;
      if (cur->second.scopeNote && cur->second.scopeNote->ended) note = *cur->second.scopeNote;
    }
    if (before != scope.saved.end()) {
      auto first = scope.firstRebind.find(name);
      if (scope.loop && scope.readBeforeRebind.count(name) && first != scope.firstRebind.end())
        warning(
            first->second,
            fmt::format("'{}' is re-bound inside the loop, but a plain assignment lasts only to "
                        "the end of the loop body: every iteration reads the value '{}' had "
                        "before the loop; use T.alloc_var for a running value",
                        name, name));
      env.names[name] = before->second;
      note.ended = false;
      notes.push_back({name, before->second.serial, note});
      continue;
    }
    env.names.erase(name);
    // A name of an enclosing environment (a macro's caller) shows through again.
    if (env.parent && env.parent->lookup(name)) continue;
    note.ended = true;
    notes.push_back({name, 0, note});
  }
  return notes;
}

void Elaborator::applyScopeNotes(Env& env, const std::vector<PendingScopeNote>& notes) {
  for (const auto& p : notes) {
    if (p.note.ended) {
      if (env.lookup(p.name)) continue;
      Value gone = Value::undefined("bound only inside a " + p.note.scope, p.note.boundAt);
      gone.scopeNote = std::make_shared<ScopeNote>(p.note);
      env.names[p.name] = std::move(gone);
      continue;
    }
    auto it = env.names.find(p.name);
    if (it != env.names.end() && it->second.serial == p.serial)
      it->second.scopeNote = std::make_shared<ScopeNote>(p.note);
  }
}

void Elaborator::noteNameRead(const py::Expr& name, Env& env) {
  Env* owner = &env;
  while (owner && !owner->names.count(name.id)) owner = owner->parent.get();
  if (!owner) return;
  Value& v = owner->names[name.id];
  if (v.scopeNote) {
    const ScopeNote n = *v.scopeNote;
    if (n.ended)
      fail(name.loc,
           fmt::format("'{}' is bound only inside the {} at line {} and is not defined after it; "
                       "assign it before the {} (a T.alloc_var can hold a value computed inside)",
                       name.id, n.scope, n.scopeLoc.line, n.scope));
    warning(
        name.loc,
        fmt::format("'{}' is re-bound inside the {} at line {}, but a plain assignment lasts only "
                    "to the end of the {}: here '{}' has its value from before the {}; use "
                    "T.alloc_var for a running value",
                    name.id, n.scope, n.boundAt.line, n.scope, name.id, n.scope));
    v.scopeNote.reset();  // one warning per re-binding
  }
  for (auto& scope : scopes_) {
    if (!scope.loop || scope.env != owner) continue;
    auto it = scope.saved.find(name.id);
    if (it != scope.saved.end() && it->second.serial == v.serial)
      scope.readBeforeRebind.insert(name.id);
  }
}

void Elaborator::elabStmt(const py::Stmt& s, Env& env, BlockCtx& ctx) {
  using SK = py::StmtKind;
  // Where a macro called inside an expression of this statement puts its statements.
  struct CtxGuard {
    BlockCtx*& slot;
    BlockCtx* saved;
    ~CtxGuard() { slot = saved; }
  } ctxGuard{currentCtx_, currentCtx_};
  currentCtx_ = &ctx;
  switch (s.kind) {
    case SK::Pass:
      return;
    case SK::Expr:
      return elabExprStmt(s, env, ctx);
    case SK::Assign:
    case SK::AugAssign:
    case SK::AnnAssign:
      return elabAssign(s, env, ctx);
    case SK::For:
      return elabFor(s, env, ctx);
    case SK::With:
      return elabWith(s, env, ctx);
    case SK::If:
      return elabIf(s, env, ctx);
    case SK::While:
      return elabWhile(s, env, ctx);
    case SK::Unparsed:
      fail(s.reasonLoc.valid() ? s.reasonLoc : s.loc, s.reason);
    case SK::Assert: {
      Value cond = eval(*s.value, env);
      if (!cond.isConstant())
        fail(s.loc, "'assert' on a run-time value is not supported in a kernel");
      if (!truthy(cond, s.loc))
        fail(s.loc, "assertion failed" +
                        (s.annotation ? ": " + pyStr(eval(*s.annotation, env)) : std::string()));
      return;
    }
    case SK::FunctionDef:
      if (isMacro(s)) {
        auto alias = std::shared_ptr<Env>(std::shared_ptr<Env>{}, &env);
        bindFunction(s, alias);
        return;
      }
      fail(s.loc, "nested functions are not supported in a kernel body (use @T.macro)");
    case SK::Return:
      fail(s.loc, "'return' is not supported in a kernel body");
    case SK::Break:
      fail(s.loc, "'break' is not supported in a kernel");
    case SK::Continue:
      fail(s.loc, "'continue' is not supported in a kernel");
    case SK::Import:
      bindImport(s, env);
      return;
    case SK::Raise:
      fail(s.loc,
           "'raise' is not supported in a kernel body; raise in the factory function instead");
    case SK::Delete:
      fail(s.loc, "'del' is not supported in a kernel body");
    case SK::Global:
      fail(s.loc, "'global' and 'nonlocal' are not supported in a kernel body");
    case SK::ClassDef:
      fail(s.loc, "class definitions are not supported in a kernel body");
  }
  fail(s.loc, "this statement is not supported in a kernel body");
}

void Elaborator::elabExprStmt(const py::Stmt& s, Env& env, BlockCtx& ctx) {
  const py::Expr& e = *s.value;
  if (e.kind == py::ExprKind::Str || e.kind == py::ExprKind::Ellipsis) return;  // docstring
  if (e.kind != py::ExprKind::Call) fail(e.loc, "expression statement has no effect");
  Value fn = eval(*e.lhs, env);
  if (fn.kind == K::DialectFn && fn.s.rfind("builtins.", 0) != 0) {
    if (elabTileOp(fn.s, e, env, ctx)) return;
    if (fn.s.rfind("simd.", 0) == 0) {
      simdNameHint_.clear();
      callSimd(fn.s.substr(5), e, env);  // vsts, mem_bar; a register made here is unused
      return;
    }
    callDialect(fn.s, e, env);  // reports "not supported" for unknown names
    fail(e.loc, fmt::format("the result of T.{}(...) is unused", fn.s));
  }
  if (fn.kind == K::Function && isMacro(*fn.def)) {
    inlineMacro(fn, e, env, ctx);  // a returned value is unused, as in Python
    return;
  }
  if (fn.kind == K::DialectFn && fn.s == "builtins.print") return;
  fail(e.loc, "this call is not supported as a kernel statement");
}

Value Elaborator::inlineMacro(const Value& fn, const py::Expr& call, Env& env, BlockCtx& ctx) {
  CallLevel level = enterCall(call.loc, "macro nesting too deep (recursive macro?)");
  Env local;
  local.parent = fn.closure ? fn.closure : moduleEnv_;
  // The macro's closure may be the kernel's own env (a macro defined in the
  // kernel); its names stay visible through the parent chain.
  auto args = positional(call, env);
  size_t ai = 0;
  for (const auto& p : fn.def->params) {
    if (p.varArgs || p.varKwargs) fail(p.loc, "'*args' and '**kwargs' are not supported in macros");
    if (ai < args.size())
      local.bind(p.name, args[ai++]);
    else if (const py::Keyword* k = keyword(call, p.name))
      local.bind(p.name, eval(*k->value, env));
    else if (p.defaultValue)
      local.bind(p.name, eval(*p.defaultValue, *local.parent));
    else
      fail(call.loc, fmt::format("macro '{}' is missing argument '{}'", fn.def->name, p.name));
  }
  if (ai < args.size())
    fail(call.loc, fmt::format("macro '{}' takes {} arguments ({} given)", fn.def->name,
                               fn.def->params.size(), args.size()));
  // Errors inside the macro body get a note saying where it was inlined.
  macroStack_.push_back({fn.def->name, call.loc});
  struct Pop {
    std::vector<std::pair<std::string, SourceLoc>>& s;
    ~Pop() { s.pop_back(); }
  } pop{macroStack_};
  // A `return value` at the end of the body gives the call's value (TileLang's
  // macros return Python values: `a, b = m(x)`, `m(x) + 1`).
  for (const auto& s : fn.def->body) {
    if (s->kind == py::StmtKind::Return) {
      if (!s->value) break;
      try {
        if (&s != &fn.def->body.back())
          fail(s->loc,
               fmt::format("macro '{}' may return only as its last statement", fn.def->name));
        return eval(*s->value, local);
      } catch (const EvalError& e) {
        error(e.loc, e.message);        // here, so the note names the call site
        throw EvalError{call.loc, ""};  // the call has no value; reported
      }
    }
    try {
      elabStmt(*s, local, ctx);
    } catch (const EvalError& e) {
      reportFailedStatement(e, *s, local);
    }
  }
  return Value::none();
}

void Elaborator::requireNotElementwise(const std::string& what, SourceLoc loc,
                                       const BlockCtx& ctx) {
  if (ctx.inParallel) fail(loc, fmt::format("{} is not allowed inside a T.Parallel loop", what));
}

Value Elaborator::allocate(const std::string& fn, const py::Expr& call, Env& env,
                           const std::string& name) {
  static const std::map<std::string, MemScope> kScopes = {{"alloc_shared", MemScope::UB},
                                                          {"alloc_ub", MemScope::UB},
                                                          {"alloc_l1", MemScope::L1},
                                                          {"alloc_L1", MemScope::L1},
                                                          {"alloc_l0a", MemScope::L0A},
                                                          {"alloc_L0A", MemScope::L0A},
                                                          {"alloc_l0b", MemScope::L0B},
                                                          {"alloc_L0B", MemScope::L0B},
                                                          {"alloc_l0c", MemScope::L0C},
                                                          {"alloc_L0C", MemScope::L0C},
                                                          {"alloc_fragment", MemScope::Fragment},
                                                          {"alloc_local", MemScope::Local}};
  auto args = positional(call, env);
  // Where the shape and dtype are written, for messages.
  auto where = [&](size_t pos, const char* kw) {
    if (const py::Keyword* k = keyword(call, kw)) return k->value->loc;
    return argLoc(call, pos);
  };
  if (fn == "alloc_var") {
    checkKeywords(call, "T.alloc_var", {"init", "dtype"});
    if (args.size() > 2)
      fail(call.loc, fmt::format("T.alloc_var takes (dtype, init=None) ({} given)", args.size()));
    Value dt = !args.empty() ? args[0] : Value::none();
    if (const py::Keyword* k = keyword(call, "dtype")) dt = eval(*k->value, env);
    if (dt.kind == K::None) fail(call.loc, "T.alloc_var needs a dtype: T.alloc_var(\"int32\")");
    Buffer b =
        makeBuffer(name, MemScope::LocalVar, toDType(dt, where(0, "dtype")), {intImm(1)}, call.loc);
    Value init = args.size() > 1 ? args[1] : Value::none();
    if (const py::Keyword* k = keyword(call, "init")) init = eval(*k->value, env);
    Value bv = Value::buf(b);
    bv.loc = call.loc;
    if (init.kind != K::None) {
      if (!kernel_) return bv;
      pendingInit_ = std::make_shared<StoreStmt>(b, std::vector<Expr>{intImm(0)},
                                                 toExpr(init, call.loc, b->dtype), call.loc);
    }
    return bv;
  }
  // T.alloc_reducer(shape, dtype, op=, replication=): a fragment that every
  // thread of a T.SimtVF region accumulates into and T.finalize_reducer
  // combines. The simulator runs the threads' work in one sequential order
  // (docs/simulator.md), so the one fragment already holds the combined value
  // and finalize_reducer has nothing left to do (docs/language.md).
  bool reducer = fn == "alloc_reducer";
  auto it = kScopes.find(reducer ? std::string("alloc_fragment") : fn);
  if (it == kScopes.end())
    fail(call.loc,
         fmt::format("unknown allocation T.{}; use alloc_shared, alloc_ub, alloc_l1, alloc_l0a, "
                     "alloc_l0b, alloc_l0c, alloc_fragment, alloc_local, alloc_reducer or "
                     "alloc_var",
                     fn));
  if (reducer) {
    checkKeywords(call, "T." + fn, {"dtype", "op", "replication", "shape"});
    auto word = [&](const char* kw, const std::set<std::string>& allowed, const char* dflt) {
      const py::Keyword* k = keyword(call, kw);
      if (!k) return std::string(dflt);
      Value v = eval(*k->value, env);
      if (v.kind != K::Str || !allowed.count(v.s))
        fail(k->value->loc, fmt::format("T.alloc_reducer {}= must be one of \"{}\", got {}", kw,
                                        fmt::join(allowed, "\", \""), describe(v)));
      return v.s;
    };
    word("op", {"max", "min", "sum"}, "sum");
    word("replication", {"all", "none"}, "none");
  } else {
    checkKeywords(call, "T." + fn, {"dtype", "scope", "shape"});
  }
  if (args.size() > 2)
    fail(call.loc, fmt::format("T.{} takes (shape, dtype) ({} given)", fn, args.size()));
  Value shape = !args.empty() ? args[0] : Value::none();
  Value dtype = args.size() > 1 ? args[1] : Value::dtype(DType::Float32);
  if (const py::Keyword* k = keyword(call, "shape")) shape = eval(*k->value, env);
  if (const py::Keyword* k = keyword(call, "dtype")) dtype = eval(*k->value, env);
  if (shape.kind == K::None)
    fail(call.loc, fmt::format("T.{} needs a shape: T.{}((M, N), dtype)", fn, fn));
  auto dims = toConstShape(shape, where(0, "shape"), "an on-chip buffer shape");
  std::vector<Expr> s;
  for (auto d : dims) s.push_back(extentImm(d));
  MemScope scope = it->second;
  if (const py::Keyword* k = keyword(call, "scope"); k && !reducer) {
    // `scope=` is honoured: T.alloc_shared may name any on-chip scope
    // ("shared.dyn" is TileLang's spelling of the UB); the other calls
    // allocate in their own scope and may only repeat it.
    Value v = eval(*k->value, env);
    bool shared = fn == "alloc_shared" || fn == "alloc_ub";
    std::optional<MemScope> asked;
    if (v.kind == K::Str) asked = v.s == "shared.dyn" ? MemScope::UB : parseMemScope(v.s);
    bool onChip = asked && isCapacityChecked(*asked);
    if (shared && onChip) {
      scope = *asked;
    } else if (!shared && asked && *asked == it->second) {
      // the call's own scope, spelled out
    } else if (shared) {
      fail(k->value->loc,
           fmt::format("T.{} scope= must be an on-chip memory: \"shared\" (or \"shared.dyn\"), "
                       "\"shared.l1\", \"shared.l0a\", \"shared.l0b\" or \"shared.l0c\"; got {}",
                       fn, describe(v)));
    } else {
      fail(k->value->loc, fmt::format("T.{} allocates in \"{}\"; scope= may only repeat it, got {}",
                                      fn, memScopeName(it->second), describe(v)));
    }
  }
  Buffer b = makeBuffer(name, scope, toDType(dtype, where(1, "dtype")), s, call.loc, nullptr,
                        fn == "alloc_ub");
  if (reducer) reducers_.insert(b->storage.get());
  return Value::buf(b);
}

void Elaborator::elabAssign(const py::Stmt& s, Env& env, BlockCtx& ctx) {
  if (!s.value) {
    if (s.kind == py::StmtKind::AnnAssign) return;  // `x: int` declares nothing
    fail(s.loc, "assignment without a value");
  }
  if (s.targets.size() != 1) fail(s.loc, "chained assignment is not supported in a kernel");
  const py::Expr& target = *s.targets[0];
  // `x = T.view(...) if flag else T.reshape(...)` with a compile-time flag is
  // the chosen branch's allocation or view.
  const py::Expr* value = s.value.get();
  while (s.kind != py::StmtKind::AugAssign && value->kind == py::ExprKind::IfExp &&
         target.kind == py::ExprKind::Name) {
    Value test = eval(*value->rhs, env);
    if (!test.isConstant()) break;
    const py::Expr* chosen = truthy(test, value->rhs->loc) ? value->lhs.get() : value->step.get();
    if (chosen->kind != py::ExprKind::Call && chosen->kind != py::ExprKind::IfExp) break;
    value = chosen;
  }
  // Allocations and views are named by their target.
  if (s.kind != py::StmtKind::AugAssign && value->kind == py::ExprKind::Call &&
      target.kind == py::ExprKind::Name) {
    Value fn = eval(*value->lhs, env);
    if (fn.kind == K::DialectFn && (fn.s.rfind("alloc_", 0) == 0)) {
      pendingInit_.reset();
      Value b = allocate(fn.s, *value, env, target.id);
      env.bind(target.id, b, s.loc);
      if (pendingInit_) ctx.out->push_back(pendingInit_);
      pendingInit_.reset();
      return;
    }
    if (fn.kind == K::DialectFn && (fn.s == "view" || fn.s == "reshape")) {
      env.bind(target.id, viewOf(fn.s, *value, env, target.id), s.loc);
      return;
    }
  }
  // `acc = T.simd.alloc_var(dtype)`: the register is named by its target.
  simdNameHint_ = target.kind == py::ExprKind::Name ? target.id : "";
  Value v = eval(*s.value, env);
  simdNameHint_.clear();
  if (s.kind == py::StmtKind::AugAssign) {
    Value old = eval(target, env);
    v = binaryOp(s.op, old, v, s.loc);
  }
  if (target.kind == py::ExprKind::Subscript) {
    Value base = eval(*target.lhs, env);
    if (base.kind != K::Buffer)
      fail(target.loc, "only buffer elements can be assigned in a kernel");
    Value acc = subscript(base, *target.rhs, env, target.loc);
    if (storeSimdArrayRow(acc, v, s.value->loc)) return;
    return storeTo(acc, v, s.value->loc, ctx);
  }
  if (target.kind == py::ExprKind::Name) {
    const Value* old = env.lookup(target.id);
    if (assignSimdRegister(old, v, s.value->kind == py::ExprKind::Name, s.value->loc)) return;
    if (old && old->kind == K::Buffer && old->buffer->storage->scope == MemScope::LocalVar)
      return storeTo(*old, v, s.value->loc, ctx);
    if (old && old->kind == K::Buffer && v.kind != K::Buffer)
      fail(target.loc, fmt::format("cannot assign to buffer '{}'; write its elements with '{}[...] "
                                   "= value' or use T.copy",
                                   target.id, target.id));
    if (bindPerThread(target.id, v, env, ctx, s.value->loc)) return;
    if (lastPrevVar_ && v.kind == K::Expr && v.expr->kind == ExprKind::VarRef &&
        v.expr->var == lastPrevVar_ && s.kind != py::StmtKind::AugAssign) {
      // `old = T.atomic_add(C[i], v, return_prev=True)`: the name is the scalar
      // the update sets (no copy of it).
      lastPrevVar_ = nullptr;
      env.bind(target.id, v, s.value->loc);
      return;
    }
    return assignScalar(target.id, v, env, ctx, s.value->loc, target.loc);
  }
  if (target.kind == py::ExprKind::Tuple || target.kind == py::ExprKind::List) {
    if (s.kind == py::StmtKind::AugAssign)
      fail(target.loc, "a tuple cannot be the target of an augmented assignment");
    if (!v.isSequence())
      fail(s.value->loc,
           fmt::format("cannot unpack {} into {} names", describe(v), target.elts.size()));
    if (v.elts.size() != target.elts.size())
      fail(s.value->loc,
           fmt::format("cannot unpack {} values into {} names", v.elts.size(), target.elts.size()));
    for (const auto& t : target.elts)
      if (t->kind != py::ExprKind::Name) fail(t->loc, "only names can be unpacked into");
    for (size_t i = 0; i < target.elts.size(); ++i)
      assignScalar(target.elts[i]->id, v.elts[i], env, ctx, s.value->loc, target.elts[i]->loc);
    return;
  }
  fail(target.loc, "only names and buffer elements can be assigned in a kernel");
}

// `name = T.view(buf, shape, dtype)` / `T.reshape(buf, shape)`: a buffer over
// the same storage in another shape (and dtype); of an on-chip buffer or of a
// global tensor of known size.
Value Elaborator::viewOf(const std::string& fnName, const py::Expr& call, Env& env,
                         const std::string& name) {
  // T.reshape(buf, shape) is T.view(buf, shape) that keeps the element count.
  bool reshape = fnName == "reshape";
  const std::string what = "T." + fnName;
  if (reshape)
    checkKeywords(call, what, {"shape"});
  else
    checkKeywords(call, what, {"dtype", "shape"});
  auto args = positional(call, env);
  if (args.size() > (reshape ? 2u : 3u))
    fail(call.loc, fmt::format("{} takes (buf, shape{}) ({} given)", what,
                               reshape ? "" : ", dtype=None", args.size()));
  if (args.empty() || args[0].kind != K::Buffer)
    fail(args.empty() ? call.loc : argLoc(call, 0),
         fmt::format("{} needs a buffer: {}(buf, shape{}){}", what, what, reshape ? "" : ", dtype",
                     args.empty() ? "" : ", got " + describe(args[0])));
  Value shape = args.size() > 1 ? args[1] : Value::none();
  Value dtype = args.size() > 2 ? args[2] : Value::none();
  if (const py::Keyword* k = keyword(call, "shape")) shape = eval(*k->value, env);
  if (const py::Keyword* k = keyword(call, "dtype")) dtype = eval(*k->value, env);
  auto where = [&](size_t pos, const char* kw) {
    if (const py::Keyword* k = keyword(call, kw)) return k->value->loc;
    return argLoc(call, pos);
  };
  return makeView(what, args[0].buffer, shape, dtype, call.loc, where(1, "shape"),
                  where(2, "dtype"), name);
}

// The view `name` of `base` in `shape` (and `dtype`, None: base's), checked
// as `what` (T.view, or T.reshape, which keeps the element count).
Value Elaborator::makeView(const std::string& what, const Buffer& base, const Value& shape,
                           const Value& dtype, SourceLoc loc, SourceLoc shapeLoc,
                           SourceLoc dtypeLoc, const std::string& name) {
  bool reshape = what == "T.reshape";
  // A view of a global tensor reads and writes the tensor's bytes in
  // another shape (`T.reshape(X, (groups, 128))`); its size must be known.
  if (base->storage->scope == MemScope::Global && base->storage->bytes <= 0)
    fail(loc, what + " of a global tensor with a T.dynamic size is not supported yet");
  if (!base->strides.empty())
    fail(loc, fmt::format("{} of '{}', a T.StridedTensor, is not supported yet (a view reads the "
                          "tensor's bytes in dense order)",
                          what, base->name));
  if (shape.kind == K::None)
    fail(loc,
         fmt::format("{} needs a shape: {}(buf, shape{})", what, what, reshape ? "" : ", dtype"));
  DType t = dtype.kind == K::None ? base->dtype : toDType(dtype, dtypeLoc);
  auto dims = toConstShape(shape, shapeLoc, "a view shape");
  int64_t bytes = product(dims) * dtypeBytes(t);
  if (reshape) {
    int64_t have = 1;
    for (const auto& d : base->shape) have *= asConstInt(d).value_or(0);
    if (have != product(dims))
      fail(shapeLoc,
           fmt::format("T.reshape keeps the number of elements: '{}' has {}, the new shape {}",
                       base->name, have, product(dims)));
  }
  if (bytes > base->storage->bytes)
    fail(loc, fmt::format("view of {} bytes is larger than the {} bytes of '{}'", bytes,
                          base->storage->bytes, base->name));
  std::vector<Expr> shapeExprs;
  for (auto d : dims) shapeExprs.push_back(extentImm(d));
  return Value::buf(makeBuffer(name, base->storage->scope, t, shapeExprs, loc, base->storage));
}

void Elaborator::assignScalar(const std::string& name, const Value& v, Env& env, BlockCtx& ctx,
                              SourceLoc loc, SourceLoc nameLoc) {
  // `a = v` with `v` a T.alloc_var reads it: `a` is a snapshot, not an alias.
  if (v.kind == K::Buffer && v.buffer->storage->scope == MemScope::LocalVar)
    return assignScalar(name, Value::irExpr(toExpr(v, loc)), env, ctx, loc, nameLoc);
  // The first re-binding, in a body, of a name bound outside it (for warnings).
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    if (it->env != &env) continue;
    auto saved = it->saved.find(name);
    auto now = env.names.find(name);
    if (saved != it->saved.end() && now != env.names.end() &&
        saved->second.serial == now->second.serial)
      it->firstRebind.emplace(name, nameLoc);
    break;
  }
  // Constants, buffers and tuples are compile-time bindings; only run-time
  // scalars become IR assignments.
  if (v.kind != K::Expr && v.kind != K::Access) {
    env.bind(name, v, nameLoc);
    return;
  }
  Expr value = toExpr(v, loc);
  if (isConst(value)) {
    env.bind(name, v, nameLoc);
    return;
  }
  // Every assignment is a new let (TVMScript). The IR scalar of the name's
  // current binding is reused only when that binding was made in this same
  // body (straight-line re-binding, same dtype): then no read of the old
  // value can follow the assignment.
  Var var;
  auto old = env.names.find(name);
  if (old != env.names.end() && old->second.kind == K::Expr &&
      old->second.expr->kind == ExprKind::VarRef && old->second.expr->var->kind == VarKind::Local &&
      old->second.expr->var->dtype == value->dtype) {
    bool boundHere = true;
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->env != &env) continue;
      auto saved = it->saved.find(name);
      boundHere = saved == it->saved.end() || saved->second.serial != old->second.serial;
      break;
    }
    if (boundHere) var = old->second.expr->var;
  }
  if (!var) var = makeVar(name, value->dtype, VarKind::Local);
  env.bind(name, Value::irExpr(varRef(var)), nameLoc);
  scalarBindings_.record(var, cast(var->dtype, value));
  ctx.out->push_back(std::make_shared<AssignStmt>(var, cast(var->dtype, value), loc));
}

void Elaborator::storeTo(const Value& target, const Value& value, SourceLoc loc, BlockCtx& ctx) {
  Buffer b = target.buffer;
  std::vector<Expr> idx;
  if (target.kind == K::Buffer) {
    idx.push_back(intImm(0));
  } else {
    for (const auto& a : target.access) {
      if (a.isSlice)
        fail(a.loc, fmt::format("cannot assign to a slice of '{}'; use T.copy or T.fill", b->name));
      idx.push_back(a.start);
    }
  }
  Expr v = toExpr(value, loc, b->dtype);
  ctx.out->push_back(std::make_shared<StoreStmt>(b, std::move(idx), cast(b->dtype, v), loc));
}

void Elaborator::loopAnnotations(const py::Expr& call, Env& env, ForStmt& loop) {
  if (const py::Keyword* k = keyword(call, "num_stages")) {
    loop.numStages = toConstInt(eval(*k->value, env), k->value->loc, "num_stages");
    if (loop.numStages < 0)
      fail(k->value->loc, fmt::format("num_stages must be >= 0, got {}", loop.numStages));
    // TileLang reads 0 as "no pipelining": nothing is multi-buffered, which
    // an author who wrote T.Pipelined rarely means.
    if (loop.numStages == 0 && loop.forKind == ForKind::Pipelined)
      warning(k->value->loc,
              "num_stages=0 gives no buffer of this loop a second version: it runs like "
              "T.serial; use num_stages=2 to double-buffer, or T.serial to say it is serial");
  }
  const py::Keyword* annos = keyword(call, "annotations");
  if (!annos) return;
  Value d = eval(*annos->value, env);
  if (d.kind == K::None) return;
  if (d.kind != K::Dict)
    fail(annos->value->loc, "annotations must be a dict: annotations={\"enable_offset\": True}");
  for (const auto& [key, value] : d.items) {
    if (key.kind != K::Str) fail(annos->value->loc, "annotation keys must be strings");
    if (key.s == "num_stages") {
      loop.numStages = toConstInt(value, annos->value->loc, "num_stages");
      if (loop.numStages < 0)
        fail(annos->value->loc, fmt::format("num_stages must be >= 0, got {}", loop.numStages));
      if (loop.forKind == ForKind::Serial) loop.forKind = ForKind::Pipelined;
    } else if (key.s == "enable_offset") {
      if (value.kind != K::Bool) fail(annos->value->loc, "\"enable_offset\" must be True or False");
      loop.enableOffset = value.b;
    } else if (key.s == "multi_buffer_eligible") {
      std::vector<Value> items = value.isSequence() ? value.elts : std::vector<Value>{value};
      loop.eligibleLoc = annos->value->loc;
      for (const auto& item : items) {
        if (item.kind != K::Buffer)
          fail(annos->value->loc,
               fmt::format("\"multi_buffer_eligible\" must list buffers, got {}", typeName(item)));
        if (!isCapacityChecked(item.buffer->storage->scope))
          fail(annos->value->loc,
               fmt::format("buffer '{}' in scope '{}' cannot be multi-buffered; only shared, "
                           "shared.l1, shared.l0a, shared.l0b and shared.l0c buffers have versions",
                           item.buffer->name, memScopeName(item.buffer->storage->scope)));
        loop.eligible.push_back(item.buffer);
      }
    } else {
      warning(annos->value->loc, fmt::format("unknown loop annotation '{}' is ignored; known: "
                                             "num_stages, enable_offset, multi_buffer_eligible",
                                             key.s));
    }
  }
}

namespace {

// Loop variables are visible in the body only: `n` bound for the body, the
// value it named before returned (a name of an enclosing env shows through
// again by itself).
std::optional<Value> bindLoopName(Env& env, const std::string& n, Value v) {
  auto old = env.names.find(n);
  std::optional<Value> saved =
      old != env.names.end() ? std::optional<Value>(old->second) : std::nullopt;
  env.bind(n, std::move(v));
  return saved;
}

void restoreLoopName(Env& env, const std::string& n, const std::optional<Value>& saved) {
  if (saved)
    env.names[n] = *saved;  // the same binding again (keeps its serial)
  else
    env.names.erase(n);
}

}  // namespace

// `for x in <constant sequence>`: unrolled while building the kernel.
void Elaborator::unrollSequence(const py::Stmt& s, Env& env, BlockCtx& ctx) {
  const py::Expr& iter = *s.iter;
  const py::Expr& target = *s.targets[0];
  Value seq = eval(iter, env);
  if (!seq.isSequence())
    fail(iter.loc,
         "a kernel loop must iterate over T.serial, T.Pipelined, T.Parallel, T.Persistent, "
         "T.unroll or range");
  if (seq.elts.size() > kMaxUnroll)
    fail(iter.loc, fmt::format("a loop over a constant sequence is unrolled; {} elements is more "
                               "than {}, use T.serial",
                               seq.elts.size(), kMaxUnroll));
  for (const auto& v : seq.elts) {
    assignTargets(target, v, env, s.loc);
    elabBlock(s.body, env, ctx);
  }
}

// `for i, j in T.Parallel(m, n)`.
void Elaborator::elabParallelFor(const py::Stmt& s, Env& env, BlockCtx& ctx) {
  const py::Expr& iter = *s.iter;
  const py::Expr& target = *s.targets[0];
  auto bodyInto = [&](std::vector<Stmt>& out, BlockCtx inner) {
    inner.out = &out;
    elabScopedBlock(s.body, env, inner, "loop", s.loc, /*loop=*/true);
    return std::make_shared<SeqStmt>(std::move(out), s.loc);
  };
  auto bindTemp = [&](const std::string& n, Value v) { return bindLoopName(env, n, std::move(v)); };
  requireNotElementwise("a nested T.Parallel", s.loc, ctx);
  checkKeywords(iter, "T.Parallel", {});
  auto extents = positional(iter, env);
  std::vector<const py::Expr*> names;
  if (target.kind == py::ExprKind::Tuple || target.kind == py::ExprKind::List)
    for (const auto& t : target.elts) names.push_back(t.get());
  else
    names.push_back(&target);
  if (names.size() != extents.size())
    fail(target.loc,
         fmt::format("T.Parallel has {} extent{} but the loop binds {} name{}", extents.size(),
                     extents.size() == 1 ? "" : "s", names.size(), names.size() == 1 ? "" : "s"));
  auto p = std::make_shared<ParallelStmt>(s.loc);
  std::vector<std::pair<std::string, std::optional<Value>>> saved;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i]->kind != py::ExprKind::Name) fail(names[i]->loc, "T.Parallel binds plain names");
    int64_t ext = toConstInt(extents[i], iter.loc, "T.Parallel extent");
    if (ext < 1) fail(iter.loc, fmt::format("T.Parallel extent must be positive, got {}", ext));
    Var v = makeVar(names[i]->id, DType::Int32, VarKind::Loop);
    p->vars.push_back(v);
    p->extents.push_back(ext);
    saved.push_back({names[i]->id, bindTemp(names[i]->id, Value::irExpr(varRef(v)))});
  }
  std::vector<Stmt> out;
  BlockCtx inner = ctx;
  inner.inParallel = true;
  p->body = bodyInto(out, inner);
  for (auto& [n, v] : saved) restoreLoopName(env, n, v);
  ctx.out->push_back(p);
}

void Elaborator::elabFor(const py::Stmt& s, Env& env, BlockCtx& ctx) {
  if (!s.orelse.empty()) fail(s.orelse[0]->loc, "'for ... else' is not supported in a kernel");
  const py::Expr& iter = *s.iter;
  const py::Expr& target = *s.targets[0];
  Value fn = iter.kind == py::ExprKind::Call ? eval(*iter.lhs, env) : Value::none();
  std::string name = fn.kind == K::DialectFn ? fn.s : "";
  if (name == "builtins.range" || name == "Serial") name = "serial";
  if (name == "Unroll") name = "unroll";  // T.Unroll(n, explicit=True): TileLang's spelling

  if (iter.kind != py::ExprKind::Call || name.empty()) return unrollSequence(s, env, ctx);

  auto bodyInto = [&](std::vector<Stmt>& out, BlockCtx inner) {
    inner.out = &out;
    elabScopedBlock(s.body, env, inner, "loop", s.loc, /*loop=*/true);
    return std::make_shared<SeqStmt>(std::move(out), s.loc);
  };
  auto bindTemp = [&](const std::string& n, Value v) { return bindLoopName(env, n, std::move(v)); };
  auto restore = [&](const std::string& n, const std::optional<Value>& saved) {
    restoreLoopName(env, n, saved);
  };

  if (name == "Parallel") return elabParallelFor(s, env, ctx);

  if (ctx.inParallel && (name == "serial" || name == "unroll"))
    return unrollInParallel(s, fn.s == "builtins.range" ? "range" : "T." + fn.s, env, ctx);
  requireNotElementwise("a loop", s.loc, ctx);
  auto loop = std::make_shared<ForStmt>(s.loc);
  std::vector<std::pair<std::string, std::optional<Value>>> saved;
  Expr guard;
  if (name == "serial" || name == "unroll" || name == "Pipelined") {
    loop->forKind = name == "serial"   ? ForKind::Serial
                    : name == "unroll" ? ForKind::Unroll
                                       : ForKind::Pipelined;
    if (name == "Pipelined")
      checkKeywords(iter, "T.Pipelined", {"num_stages", "annotations", "order", "stage", "group"});
    else if (name == "serial")
      checkKeywords(iter, fn.s == "builtins.range" ? "range" : "T." + fn.s, {"annotations"});
    else
      checkUnrollKeywords(iter, "T." + fn.s, env);
    auto a = positional(iter, env);
    if (a.empty() || a.size() > 3)
      fail(iter.loc,
           fmt::format("T.{} takes 1 to 3 arguments (extent, or start, stop[, step])", name));
    Expr start = a.size() == 1 ? intImm(0) : toExpr(a[0], iter.loc);
    Expr stop = toExpr(a.size() == 1 ? a[0] : a[1], iter.loc);
    int64_t step = a.size() == 3 ? toConstInt(a[2], iter.loc, "loop step") : 1;
    if (step == 0) fail(iter.loc, "loop step must not be zero");
    if (isFloat(start->dtype) || isFloat(stop->dtype))
      fail(iter.loc, "loop bounds must be integers");
    if (target.kind != py::ExprKind::Name)
      fail(target.loc, "the loop variable must be a plain name");
    if (name == "Pipelined") loop->numStages = 1;
    loop->var = makeVar(target.id, DType::Int32, VarKind::Loop);
    loop->min = intImm(0);
    Expr span = sub(stop, start);
    // extent = ceil(span / step), clamped at 0 when constant.
    Expr extent =
        step == 1 ? span : floordiv(add(span, step > 0 ? step - 1 : step + 1), intImm(step));
    if (auto c = asConstInt(extent); c && *c < 0) extent = intImm(0);
    loop->extent = extent;
    Expr value = add(start, mul(varRef(loop->var), step));
    saved.push_back({target.id, bindTemp(target.id, Value::irExpr(value))});
    loopAnnotations(iter, env, *loop);
  } else if (name == "Persistent") {
    checkKeywords(iter, "T.Persistent", {"group_size", "num_stages", "annotations"});
    auto a = positional(iter, env);
    if (a.size() != 3)
      fail(iter.loc,
           "T.Persistent in a for loop takes (domain, wave_size, index); use 'with "
           "T.Persistent(extent, num_stages=k) as i:' for the short form");
    std::vector<Value> domain = a[0].isSequence() ? a[0].elts : std::vector<Value>{a[0]};
    std::vector<int64_t> dims;
    for (const auto& d : domain)
      dims.push_back(toConstInt(d, argLoc(iter, 0), "T.Persistent domain"));
    if (dims.empty()) fail(argLoc(iter, 0), "the T.Persistent domain needs at least one dimension");
    int64_t total = 1;
    for (auto d : dims) {
      if (d < 1)
        fail(argLoc(iter, 0), fmt::format("T.Persistent domain sizes must be positive, got {}", d));
      if (__builtin_mul_overflow(total, d, &total) || total > kMaxElements)
        fail(argLoc(iter, 0), "the T.Persistent domain may hold at most 2^40 tiles");
    }
    Expr wave = toExpr(a[1], argLoc(iter, 1));
    Expr index = toExpr(a[2], argLoc(iter, 2));
    if (auto w = asConstInt(wave); w && *w < 1) fail(argLoc(iter, 1), "wave_size must be positive");
    loop->forKind = ForKind::Persistent;
    loop->numStages = 0;
    // The loop counts rounds; the names bind tile coordinates computed from
    // it. Messages and printed IR name it after them: `for tm, tn in ...` is
    // loop `tm_tn_iter`.
    std::string iterName = "tile";
    if (target.kind == py::ExprKind::Name) {
      iterName = target.id;
    } else if (target.kind == py::ExprKind::Tuple || target.kind == py::ExprKind::List) {
      std::string joined;
      for (const auto& e : target.elts)
        if (e->kind == py::ExprKind::Name) joined += (joined.empty() ? "" : "_") + e->id;
      if (!joined.empty()) iterName = joined;
    }
    loop->var = makeVar(iterName + "_iter", DType::Int32, VarKind::Loop);
    loop->min = intImm(0);
    // Core `index` of `wave` visits tiles index, index + wave, ...: ceil(total / wave) rounds.
    loop->extent = floordiv(add(intImm(total), sub(wave, intImm(1))), wave);
    Expr linear = add(index, mul(varRef(loop->var), wave));
    if (!asConstInt(wave) || total % *asConstInt(wave) != 0 || !asConstInt(index) ||
        *asConstInt(index) != 0)
      guard = binary(BinOp::LT, linear, intImm(total));
    std::vector<Value> coords(dims.size());
    Expr rest = linear;
    for (size_t i = dims.size(); i-- > 0;) {
      coords[i] = Value::irExpr(i == 0 ? rest : floormod(rest, intImm(dims[i])));
      rest = floordiv(rest, intImm(dims[i]));
    }
    Value tile = coords.size() == 1 ? coords[0] : Value::tuple(coords);
    if (target.kind == py::ExprKind::Name) {
      saved.push_back({target.id, bindTemp(target.id, tile)});
    } else if (target.kind == py::ExprKind::Tuple || target.kind == py::ExprKind::List) {
      if (target.elts.size() != coords.size())
        fail(target.loc,
             fmt::format("T.Persistent domain has {} dimension{} but the loop binds {} name{}",
                         coords.size(), coords.size() == 1 ? "" : "s", target.elts.size(),
                         target.elts.size() == 1 ? "" : "s"));
      for (size_t i = 0; i < coords.size(); ++i) {
        if (target.elts[i]->kind != py::ExprKind::Name)
          fail(target.elts[i]->loc, "only names can be bound");
        saved.push_back({target.elts[i]->id, bindTemp(target.elts[i]->id, coords[i])});
      }
    } else {
      fail(target.loc, "unsupported loop target");
    }
    loopAnnotations(iter, env, *loop);
  } else {
    fail(iter.loc, fmt::format("T.{} is not a loop; use T.serial, T.Pipelined, T.Parallel, "
                               "T.Persistent, T.unroll or range",
                               name));
  }
  std::vector<Stmt> out;
  Stmt body = bodyInto(out, ctx);
  for (auto& [n, v] : saved) restore(n, v);
  if (guard) body = std::make_shared<IfStmt>(guard, body, nullptr, s.loc);
  loop->body = body;
  ctx.out->push_back(loop);
}

// `T.unroll(n, explicit=..., unroll_factor=k)`: both are code-generation
// hints (how far the compiler unrolls), with no effect on what the loop
// computes or on its timing here; the factor must still be a positive integer.
void Elaborator::checkUnrollKeywords(const py::Expr& iter, const std::string& what, Env& env) {
  checkKeywords(iter, what, {"explicit", "unroll_factor"});
  if (const py::Keyword* k = keyword(iter, "unroll_factor")) {
    int64_t factor = toConstInt(eval(*k->value, env), k->value->loc, "unroll_factor");
    if (factor < 1)
      fail(k->value->loc, fmt::format("unroll_factor must be a positive integer, got {}", factor));
  }
}

// A serial loop in a T.Parallel body runs for each element, in order; with
// compile-time bounds it is unrolled into the element-wise body here.
// Upstream's plain-TileLang kernels accumulate this way:
// `for k in T.serial(n): acc[i] += a[k, i]`. The loop variable stays an int32
// IR value (as TileLang's loop variable is), so `k / 2` is the same error and
// `if k == 0:` the same scoped branch as in any loop.
void Elaborator::unrollInParallel(const py::Stmt& s, const std::string& what, Env& env,
                                  BlockCtx& ctx) {
  const py::Expr& iter = *s.iter;
  const py::Expr& target = *s.targets[0];
  if (what == "T.unroll" || what == "T.Unroll")
    checkUnrollKeywords(iter, what, env);
  else
    checkKeywords(iter, what, {"annotations"});
  auto a = positional(iter, env);
  if (a.empty() || a.size() > 3)
    fail(iter.loc, fmt::format("{} takes 1 to 3 arguments (extent, or start, stop[, step])", what));
  auto bound = [&](size_t i) {
    Value v = a[i];
    std::optional<int64_t> c;
    if (v.kind == K::Int || v.kind == K::Bool) c = v.i;
    if (v.kind == K::Expr) c = asConstInt(v.expr);
    if (!c)
      fail(argLoc(iter, i), fmt::format("a loop inside a T.Parallel loop is unrolled, so its "
                                        "bounds must be compile-time integers; got {}",
                                        describe(v)));
    return *c;
  };
  __int128 start = a.size() == 1 ? 0 : bound(0);
  __int128 stop = bound(a.size() == 1 ? 0 : 1);
  __int128 step = a.size() == 3 ? bound(2) : 1;
  if (step == 0) fail(argLoc(iter, 2), "loop step must not be zero");
  if (target.kind != py::ExprKind::Name) fail(target.loc, "the loop variable must be a plain name");
  __int128 trips = step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step;
  if (trips < 0) trips = 0;
  // Nested unrolled loops multiply: the cap is on the statements' copies.
  constexpr int64_t kMaxUnrolledCopies = 1024;
  if (trips * unrollCopies_ > kMaxUnrolledCopies)
    fail(iter.loc, fmt::format("a loop inside a T.Parallel loop is unrolled; {} copies of its "
                               "body (more than {}) are not supported yet",
                               static_cast<int64_t>(trips * unrollCopies_), kMaxUnrolledCopies));
  int64_t saveCopies = unrollCopies_;
  unrollCopies_ *= static_cast<int64_t>(trips);
  auto old = env.names.find(target.id);
  std::optional<Value> saved =
      old != env.names.end() ? std::optional<Value>(old->second) : std::nullopt;
  try {
    for (__int128 t = 0; t < trips; ++t) {
      size_t errors = diags_.numErrors();
      env.bind(target.id,
               Value::irExpr(intImm(static_cast<int64_t>(start + t * step), DType::Int32)));
      elabScopedBlock(s.body, env, ctx, "loop", s.loc, /*loop=*/true);
      if (diags_.numErrors() > errors) break;  // once, not once per copy
    }
  } catch (...) {
    unrollCopies_ = saveCopies;
    throw;
  }
  unrollCopies_ = saveCopies;
  if (saved)
    env.names[target.id] = *saved;
  else
    env.names.erase(target.id);
}

void Elaborator::elabWith(const py::Stmt& s, Env& env, BlockCtx& ctx, size_t itemIndex) {
  const py::WithItem& item = s.withItems[itemIndex];
  const py::Expr& call = *item.context;
  Value fn = call.kind == py::ExprKind::Call ? eval(*call.lhs, env) : eval(call, env);
  std::string name = fn.kind == K::DialectFn ? fn.s : "";
  // Only T.Stage wraps what the later items of its `with` make (a VF region).
  if (name == "Stage") return elabStage(s, itemIndex, env, ctx);
  if (itemIndex + 1 != s.withItems.size())
    fail(s.withItems[itemIndex + 1].context->loc,
         "only one item per 'with' is supported in a kernel (besides a leading T.Stage(k))");
  if (name == "Kernel") fail(s.loc, "nested 'with T.Kernel' blocks are not supported");
  if (name == "Persistent") {
    requireNotElementwise("a loop", s.loc, ctx);
    checkKeywords(call, "T.Persistent", {"num_stages", "annotations"});
    auto a = positional(call, env);
    if (a.size() != 1)
      fail(call.loc,
           "'with T.Persistent(...)' takes one extent; use 'for t in T.Persistent(domain, "
           "wave_size, index)' for the tile form");
    if (!item.target || item.target->kind != py::ExprKind::Name)
      fail(call.loc, "'with T.Persistent(extent) as i:' needs a loop variable");
    auto loop = std::make_shared<ForStmt>(s.loc);
    loop->forKind = ForKind::Persistent;
    loop->numStages = 0;
    loop->var = makeVar(item.target->id, DType::Int32, VarKind::Loop);
    loop->min = intImm(0);
    loop->extent = toExpr(a[0], argLoc(call, 0));
    if (isFloat(loop->extent->dtype)) fail(argLoc(call, 0), "loop extent must be an integer");
    loopAnnotations(call, env, *loop);
    auto old = env.names.find(item.target->id);
    std::optional<Value> saved =
        old != env.names.end() ? std::optional<Value>(old->second) : std::nullopt;
    env.bind(item.target->id, Value::irExpr(varRef(loop->var)));
    std::vector<Stmt> out;
    BlockCtx inner = ctx;
    inner.out = &out;
    elabScopedBlock(s.body, env, inner, "loop", s.loc, /*loop=*/true);
    if (saved)
      env.names[item.target->id] = *saved;
    else
      env.names.erase(item.target->id);
    loop->body = std::make_shared<SeqStmt>(std::move(out), s.loc);
    ctx.out->push_back(loop);
    return;
  }
  if (name == "SimtVF" || name == "SimdVF") {
    elabVFRegion(call, name, s.body, s.loc, env, ctx);
    return;
  }
  if (name == "Cube" || name == "Vector") {
    elabCoreScope(call, name, item, s, env, ctx);
    return;
  }
  if (name == "Task") {
    // Upstream's T.Task keeps its statements together as one scheduling unit
    // with an optional cost (latency=, ii=). tilesched reads it as a plain
    // block: the values are the same, the statements are scheduled one by one
    // and synchronised as usual (docs/language.md).
    warning(call.loc,
            "T.Task is read as a plain block: its statements are scheduled one by "
            "one (the grouping and its latency/ii are not modelled yet)");
    elabScopedBlock(s.body, env, ctx, "T.Task body", s.loc, /*loop=*/false);
    return;
  }
  if (!name.empty()) fail(call.loc, fmt::format("'with T.{}' is not supported yet", name));
  fail(call.loc,
       "only 'with T.Kernel', 'with T.Persistent', 'with T.SimtVF', 'with T.SimdVF', "
       "'with T.Cube', 'with T.Vector' and 'with T.Task' are supported in a kernel");
}

// `with T.SimtVF(...)` / `with T.SimdVF(...)` around `body`: one VF region
// (also the second item of `with T.Kernel(n), T.SimtVF(...):`).
void Elaborator::elabVFRegion(const py::Expr& call, const std::string& name,
                              const py::StmtList& body, SourceLoc loc, Env& env, BlockCtx& ctx) {
  requireNotElementwise("a VF region", loc, ctx);
  if (ctx.inVF) fail(loc, "VF regions cannot be nested");
  bool simt = name == "SimtVF";
  if (simt)
    checkKeywords(call, "T.SimtVF", {"threads", "latency"});
  else
    checkKeywords(call, "T.SimdVF", {"latency"});
  auto region = std::make_shared<VFRegionStmt>(loc);
  region->simt = simt;
  // Upstream's signatures: T.SimdVF(latency=0), T.SimtVF(threads, latency=0);
  // the arguments may be positional.
  size_t maxPositional = simt ? 2 : 1;
  if (call.elts.size() > maxPositional)
    fail(call.loc, fmt::format("T.{} takes at most {} positional argument{} ({}) ({} given)", name,
                               maxPositional, maxPositional == 1 ? "" : "s",
                               simt ? "threads, latency" : "latency", call.elts.size()));
  auto argument = [&](const char* kw, size_t pos) -> const py::Expr* {
    if (const py::Keyword* k = keyword(call, kw)) {
      if (call.elts.size() > pos)
        fail(k->loc, fmt::format("T.{} got {} both by position and as {}=", name, kw, kw));
      return k->value.get();
    }
    return call.elts.size() > pos ? call.elts[pos].get() : nullptr;
  };
  std::vector<int64_t> threadDims;
  if (simt) {
    const py::Expr* t = argument("threads", 0);
    if (!t) fail(call.loc, "T.SimtVF needs threads=K");
    // threads=(x, y) is a 2-D thread block of x*y threads; T.get_thread_binding
    // indexes them (SimtThreads.cpp).
    Value threads = eval(*t, env);
    std::vector<Value> dims = threads.isSequence() ? threads.elts : std::vector<Value>{threads};
    if (dims.empty() || dims.size() > 3)
      fail(t->loc, "threads must be an integer or a tuple of 1 to 3 integers");
    region->threads = 1;
    for (const auto& d : dims) {
      int64_t n = toConstInt(d, t->loc, "threads");
      if (n < 1) fail(t->loc, "threads must be positive");
      threadDims.push_back(n);
      if (__builtin_mul_overflow(region->threads, n, &region->threads))
        fail(t->loc, "too many threads");
    }
    kernel_->hasSimtVF = true;
  }
  if (const py::Expr* l = argument("latency", simt ? 1 : 0)) {
    // latency=0 asks for the estimate, as when the keyword is absent: upstream
    // files pass `{measured shapes}.get(d, 0)` so unmeasured shapes are estimated.
    int64_t latency = toConstInt(eval(*l, env), l->loc, "latency");
    if (latency < 0)
      fail(l->loc,
           fmt::format("latency must be a number of cycles (0 for the estimate), got {}", latency));
    if (latency > 0) region->latency = latency;
  }
  std::vector<Stmt> out;
  BlockCtx inner = ctx;
  inner.out = &out;
  inner.inVF = true;
  inner.inSimt = simt;
  SimtThreads threads;
  threads.dims = threadDims;
  threads.top = &out;
  inner.threads = simt ? &threads : nullptr;
  elabScopedBlock(body, env, inner, "T." + name + " region", loc, /*loop=*/false);
  region->body = std::make_shared<SeqStmt>(std::move(out), loc);
  if (simt) checkThreadUses(threads, region->body, loc);
  ctx.out->push_back(region);
}

void Elaborator::elabIf(const py::Stmt& s, Env& env, BlockCtx& ctx) {
  Value cond = eval(*s.iter, env);
  // A compile-time condition picks its branch while the file is read, as the
  // Python `if` it is in TileLang's builder: the branch is inlined, and the
  // names it binds stay bound after it (`if backend == "pto": ... else:
  // best = T.alloc_var(...)`). Only a run-time branch scopes its names.
  // A buffer is a Python object, always true, except a T.alloc_var scalar:
  // `if g:` tests its value at run time.
  bool runtimeScalar = cond.kind == K::Buffer && cond.buffer->storage->scope == MemScope::LocalVar;
  if (cond.isConstant() || (cond.kind == K::Buffer && !runtimeScalar)) {
    elabBlock(truthy(cond, s.iter->loc) ? s.body : s.orelse, env, ctx);
    return;
  }
  // A run-time condition that folded to a constant (`if k == 0:` on an
  // unrolled loop variable): only the taken branch is kept, but it is a body.
  if (cond.kind == K::Expr && asConstInt(cond.expr)) {
    elabScopedBlock(*asConstInt(cond.expr) ? s.body : s.orelse, env, ctx, "branch", s.loc,
                    /*loop=*/false);
    return;
  }
  Expr c = toExpr(cond, s.iter->loc);
  std::vector<Stmt> thenOut, elseOut;
  BlockCtx inner = ctx;
  inner.out = &thenOut;
  std::vector<PendingScopeNote> notes;
  elabScopedBlock(s.body, env, inner, "branch", s.loc, /*loop=*/false, &notes);
  inner.out = &elseOut;
  elabScopedBlock(s.orelse, env, inner, "branch", s.loc, /*loop=*/false, &notes);
  applyScopeNotes(env, notes);
  Stmt elseStmt = s.orelse.empty() ? nullptr : std::make_shared<SeqStmt>(std::move(elseOut), s.loc);
  if (elseStmt && s.orelse.size() == 1 && s.orelse[0]->kind == py::StmtKind::If) {
    const auto* seq = as<SeqStmt>(elseStmt);
    if (seq->stmts.size() == 1) elseStmt = seq->stmts[0];  // keep `elif` chains flat
  }
  ctx.out->push_back(std::make_shared<IfStmt>(
      c, std::make_shared<SeqStmt>(std::move(thenOut), s.loc), elseStmt, s.loc));
}

std::optional<Program> compileSource(std::shared_ptr<const SourceFile> file,
                                     const FrontendOptions& options, DiagnosticEngine& diags) {
  diags.setFile(file);
  Elaborator elaborator(file, options, diags);
  try {
    return elaborator.run();
  } catch (const EvalError& e) {
    if (!e.message.empty() || diags.numErrors() == 0) diags.error(e.loc, e.message);
  } catch (const ReturnSignal&) {
    diags.error({}, "internal error: stray return");
  }
  return std::nullopt;
}

}  // namespace tilesched::frontend
