// T.dynamic sizes taken from the tensors the kernel file itself passes to the
// kernel, as `python file.py` (or pytest) would run it (docs/language.md,
// "Factory arguments and T.dynamic sizes").
//
// Expects: the factory call the file makes (Elaborator::findFactoryCall); the
// scan that found it follows the call's result through the rest of the same
// function to the first call of the kernel object, recording every argument
// that is a torch tensor of compile-time shape (`torch.randn/rand/empty/zeros/
// ones/full/randint(...)`, `torch.*_like(t)`, through `.npu()`, `.to(...)` ...).
// Guarantees: each T.dynamic size that no -D sets, found in the
// declared shape of a kernel parameter that such a tensor fills, gets that
// tensor's dimension; the factory then runs with it exactly as with -D (the
// size is a constant everywhere: grids, loop extents, shapes). A note says
// which call gave which value; two tensors that give one size different values
// are an error naming both. Nothing found: nothing changes.
//
//   def k(use_b):                                   # file's own code:
//       n = T.dynamic("n")                          #   a = torch.randn((64,), ...)
//       @T.prim_func                                #   k(True)(None, a)
//       def main(a: T.Tensor((n,), "float16"),
//                b: T.Tensor((n,), "float16")): ...
//   →  main(a: T.Tensor((64,), "float16"), b: T.Tensor((64,), "float16"))
//      note: kernel 'main' takes the T.dynamic size n=64 from the tensors of its
//            call at line 9; -D n=VALUE overrides it
#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"

namespace tilesched::frontend {

namespace {

using K = Value::Kind;

std::string dotted(const py::Expr& e) {
  if (e.kind == py::ExprKind::Name) return e.id;
  if (e.kind == py::ExprKind::Attribute && e.lhs) {
    std::string base = dotted(*e.lhs);
    return base.empty() ? "" : base + "." + e.id;
  }
  if (e.kind == py::ExprKind::Call && e.lhs) return dotted(*e.lhs);
  return "";
}

std::string lastComponent(const std::string& name) {
  size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// Tensor methods whose result has the tensor's shape.
bool keepsShape(const std::string& method) {
  static const std::set<std::string> kMethods = {
      "npu",   "cuda",     "cpu",     "to",         "half",  "float",   "bfloat16",
      "int",   "long",     "double",  "contiguous", "clone", "detach",  "requires_grad_",
      "fill_", "uniform_", "normal_", "zero_",      "type",  "float16", "pin_memory",
      "abs"};
  return kMethods.count(method) > 0;
}

bool isTensorValue(const Value& v) { return v.kind == K::Opaque && v.s == "torch.Tensor"; }

// A torch tensor value's recipe (ir::InputRecipe) rides in its `items`, which
// a tensor value does not otherwise use: [kind, value, step, low, high, spelling].
void setRecipe(Value& t, const ir::InputRecipe& r) {
  t.items = {{Value::str("kind"), Value::integer(static_cast<int64_t>(r.kind))},
             {Value::str("value"), Value::floating(r.value)},
             {Value::str("step"), Value::floating(r.step)},
             {Value::str("low"), Value::integer(r.low)},
             {Value::str("high"), Value::integer(r.high)},
             {Value::str("spelling"), Value::str(r.spelling)}};
}

std::optional<ir::InputRecipe> recipeOf(const Value& t) {
  if (!isTensorValue(t) || t.items.size() != 6) return std::nullopt;
  ir::InputRecipe r;
  r.kind = static_cast<ir::InputRecipe::Kind>(t.items[0].second.i);
  r.value = t.items[1].second.f;
  r.step = t.items[2].second.f;
  r.low = t.items[3].second.i;
  r.high = t.items[4].second.i;
  r.spelling = t.items[5].second.s;
  r.madeAt = t.loc;
  return r;
}

bool isDeferredDynamicValue(const Value& v) {
  return v.kind == K::Opaque && v.s == "T.dynamic" && !v.elts.empty() && v.elts[0].kind == K::Str;
}

// Does `body` (or a def nested in it) call T.dynamic anywhere?
bool exprCallsDynamic(const py::Expr* e) {
  if (!e) return false;
  if (e->kind == py::ExprKind::Call && e->lhs && lastComponent(dotted(*e->lhs)) == "dynamic")
    return true;
  for (const auto* list : {&e->elts, &e->keys, &e->values})
    for (const auto& x : *list)
      if (exprCallsDynamic(x.get())) return true;
  for (const auto& k : e->keywords)
    if (exprCallsDynamic(k.value.get())) return true;
  return exprCallsDynamic(e->lhs.get()) || exprCallsDynamic(e->rhs.get()) ||
         exprCallsDynamic(e->step.get());
}

bool callsDynamic(const py::StmtList& body) {
  for (const auto& s : body) {
    for (const auto& t : s->targets)
      if (exprCallsDynamic(t.get())) return true;
    for (const auto& w : s->withItems)
      if (exprCallsDynamic(w.context.get())) return true;
    for (const auto& p : s->params)
      if (exprCallsDynamic(p.annotation.get()) || exprCallsDynamic(p.defaultValue.get()))
        return true;
    if (exprCallsDynamic(s->value.get()) || exprCallsDynamic(s->iter.get()) ||
        callsDynamic(s->body) || callsDynamic(s->orelse))
      return true;
  }
  return false;
}

// The names a factory body returns (`return main`), in statement order.
void returnedNames(const py::StmtList& body, std::vector<std::string>& out) {
  for (const auto& s : body) {
    if (s->kind == py::StmtKind::Return && s->value && s->value->kind == py::ExprKind::Name)
      out.push_back(s->value->id);
    if (s->kind == py::StmtKind::If || s->kind == py::StmtKind::With) {
      returnedNames(s->body, out);
      returnedNames(s->orelse, out);
    }
  }
}

// One dimension of a kernel parameter's declared shape.
struct DeclaredDim {
  std::optional<std::string> dynamicName;  // a T.dynamic size not set by -D
};

struct DeclaredParam {
  std::string name;
  std::optional<std::vector<DeclaredDim>> shape;  // a T.Tensor parameter
  std::vector<DeclaredDim> strides;               // a T.StridedTensor's
};

std::vector<DeclaredDim> declaredDims(const Value& v) {
  std::vector<Value> dims = v.isSequence() ? v.elts : std::vector<Value>{v};
  std::vector<DeclaredDim> out;
  for (const auto& d : dims) {
    DeclaredDim dd;
    if (isDeferredDynamicValue(d)) dd.dynamicName = d.elts[0].s;
    out.push_back(dd);
  }
  return out;
}

// The prim_func's parameters and, for each T.Tensor one, which dimensions
// are T.dynamic sizes (annotations evaluated by `evalAnnotation`; one that
// fails to evaluate declares nothing).
std::vector<DeclaredParam> declaredParams(
    const py::Stmt& primFunc, const std::function<Value(const py::Expr&)>& evalAnnotation) {
  std::vector<DeclaredParam> params;
  for (const auto& p : primFunc.params) {
    if (p.varArgs || p.varKwargs) continue;
    DeclaredParam dp;
    dp.name = p.name;
    if (p.annotation) {
      try {
        Value ann = evalAnnotation(*p.annotation);
        if (ann.kind == K::Opaque && ann.s == "T.Tensor" && ann.elts.size() == 2)
          dp.shape = declaredDims(ann.elts[0]);
        if (ann.kind == K::Opaque && ann.s == "T.StridedTensor" && ann.elts.size() == 3) {
          dp.shape = declaredDims(ann.elts[0]);
          dp.strides = declaredDims(ann.elts[2]);
        }
      } catch (const EvalError&) {
      }
    }
    params.push_back(std::move(dp));
  }
  return params;
}

struct Found {
  std::string name;
  int64_t value;
  std::string argText;  // `'a'` or `argument 2`
  size_t dim;
  SourceLoc argLoc, madeAt;
  bool stride = false;  // the dimension's stride, not its extent
};

// Adds the sizes `arg` gives the T.dynamic dimensions of `dp` to `found`;
// false after an error (two arguments give one size different values).
bool considerArgument(std::vector<Found>& found, const DeclaredParam& dp, const KernelCallArg& arg,
                      const std::string& argText, const std::string& kernelName,
                      DiagnosticEngine& diags) {
  if (arg.isNone || !arg.tensor || !dp.shape) return true;
  const TorchTensor& t = *arg.tensor;
  if (t.shape.size() != dp.shape->size()) return true;  // not this parameter's rank
  // A tensor the file makes with torch.* is dense: the stride of dimension d
  // is the product of the extents after it.
  std::vector<int64_t> denseStrides(t.shape.size(), 1);
  for (size_t d = t.shape.size(); d-- > 1;) denseStrides[d - 1] = denseStrides[d] * t.shape[d];
  for (size_t i = 0; i < 2 * t.shape.size(); ++i) {
    bool stride = i >= t.shape.size();
    size_t d = stride ? i - t.shape.size() : i;
    if (stride && dp.strides.size() != t.shape.size()) break;
    const auto& name = stride ? dp.strides[d].dynamicName : (*dp.shape)[d].dynamicName;
    int64_t value = stride ? denseStrides[d] : t.shape[d];
    if (!name || value < 1) continue;
    auto same =
        std::find_if(found.begin(), found.end(), [&](const Found& f) { return f.name == *name; });
    if (same == found.end()) {
      found.push_back({*name, value, argText, d, arg.loc, t.madeAt, stride});
      continue;
    }
    if (same->value == value) continue;
    Diagnostic& err = diags.error(
        arg.loc,
        fmt::format("{} and {} give the T.dynamic size '{}' different values ({} and {}) in this "
                    "call of kernel '{}'; make their shapes agree or pass -D {}=VALUE",
                    same->argText, argText, *name, same->value, value, kernelName, *name));
    err.notes.push_back(
        {same->argLoc, fmt::format("{}={} from {} {} of {} here", *name, same->value,
                                   same->stride ? "the stride of dimension" : "dimension",
                                   same->dim, same->argText)});
    return false;
  }
  return true;
}

// The sizes found, and the note that says where each came from.
std::map<std::string, int64_t> reportSizes(
    const std::vector<Found>& found, const std::string& kernelName, const KernelObjectCall& call,
    const std::vector<std::pair<SourceLoc, std::string>>& callNotes, DiagnosticEngine& diags) {
  std::map<std::string, int64_t> sizes;
  std::string list;
  for (const auto& f : found) {
    sizes[f.name] = f.value;
    list += fmt::format("{}{}={}", list.empty() ? "" : ", ", f.name, f.value);
  }
  std::string message =
      found.size() == 1
          ? fmt::format(
                "kernel '{}' takes the T.dynamic size {} from the tensors of its call at "
                "line {}; -D {}=VALUE overrides it",
                kernelName, list, call.loc.line, found[0].name)
          : fmt::format(
                "kernel '{}' takes the T.dynamic sizes {} from the tensors of its call at "
                "line {}; -D NAME=VALUE overrides them",
                kernelName, list, call.loc.line);
  Diagnostic& note = diags.warning(call.loc, message);
  note.severity = Severity::Note;
  for (const auto& f : found)
    note.notes.push_back(
        {f.madeAt, f.stride
                       ? fmt::format("{}={} is the stride of dimension {} of this (dense) tensor, "
                                     "passed as {}",
                                     f.name, f.value, f.dim, f.argText)
                       : fmt::format("{}={} is dimension {} of this tensor, passed as {}", f.name,
                                     f.value, f.dim, f.argText)});
  for (const auto& n : callNotes) note.notes.push_back(n);
  return sizes;
}

// The note that says which tensors `run` fills as the file's call makes them.
void reportInputs(const std::vector<std::pair<std::string, ir::InputRecipe>>& recipes,
                  const std::string& kernelName, const KernelObjectCall& call,
                  DiagnosticEngine& diags) {
  if (recipes.empty()) return;
  std::string list;
  for (const auto& [name, r] : recipes)
    list += fmt::format("{}'{}' from {}", list.empty() ? "" : ", ", name, r.spelling);
  Diagnostic& note = diags.warning(
      call.loc, fmt::format("kernel '{}' runs on inputs of the kinds the file's call at line {} "
                            "passes: {}; --input NAME=FILE.npy overrides them",
                            kernelName, call.loc.line, list));
  note.severity = Severity::Note;
  for (const auto& [name, r] : recipes)
    note.notes.push_back({r.madeAt, fmt::format("'{}' is made here ({})", name, r.spelling)});
}

}  // namespace

std::optional<Value> Elaborator::torchTensor(const py::Expr& expr, Env& env) {
  const py::Expr* e = &expr;
  // `.npu()`, `.to(device)`, `.half()` ... keep the shape.
  while (e->kind == py::ExprKind::Call && e->lhs && e->lhs->kind == py::ExprKind::Attribute &&
         e->lhs->lhs && keepsShape(e->lhs->id))
    e = e->lhs->lhs.get();
  if (e->kind == py::ExprKind::Name) {
    const Value* v = env.lookup(e->id);
    if (v && isTensorValue(*v)) return *v;
    return std::nullopt;
  }
  if (e->kind == py::ExprKind::BinOp && e->lhs && e->rhs &&
      (e->id == "+" || e->id == "-" || e->id == "*" || e->id == "/")) {
    // `torch.randn(m, n) * 128.0`: a tensor and a number (or a tensor of the same shape).
    auto l = torchTensor(*e->lhs, env);
    auto r = torchTensor(*e->rhs, env);
    auto isNumber = [&](const py::Expr& x) {
      try {
        return eval(x, env).isNumber();
      } catch (const EvalError&) {
        return false;
      }
    };
    bool lt = l && isTensorValue(*l), rt = r && isTensorValue(*r);
    // The values change: the shape is what is left of the recipe.
    auto shapeOnly = [](Value t) {
      t.items.clear();
      return t;
    };
    if (lt && rt) {
      if (l->elts.size() != r->elts.size()) return std::nullopt;
      for (size_t i = 0; i < l->elts.size(); ++i)
        if (l->elts[i].i != r->elts[i].i) return std::nullopt;
      return shapeOnly(*l);
    }
    if (lt && !r && isNumber(*e->rhs)) return shapeOnly(*l);
    if (rt && !l && isNumber(*e->lhs)) return shapeOnly(*r);
    return std::nullopt;
  }
  if (e->kind == py::ExprKind::Subscript) return torchPrefix(*e, env);
  if (e->kind != py::ExprKind::Call || !e->lhs) return std::nullopt;
  if (const Value* helper = calleeFunction(*e->lhs, env); helper && helper->def)
    return helperTensor(*helper, *e, env);
  std::string callee = dotted(*e->lhs);
  if (callee.rfind("torch.", 0) != 0 || e->lhs->kind != py::ExprKind::Attribute)
    return std::nullopt;
  std::string fn = callee.substr(6);
  static const std::set<std::string> kBySize = {"randn", "rand", "empty", "zeros", "ones"};
  static const std::set<std::string> kLike = {"randn_like",  "rand_like", "empty_like",
                                              "zeros_like",  "ones_like", "full_like",
                                              "randint_like"};
  Value undefinedShape = Value::undefined(
      "a torch tensor whose shape is not a compile-time "
      "constant",
      e->loc);
  std::optional<ir::InputRecipe> recipe;
  if (auto range = torchValues(callee, *e, env, recipe)) return range;
  if (kLike.count(fn)) {
    if (e->elts.empty()) return undefinedShape;
    auto base = torchTensor(*e->elts[0], env);
    if (!base || !isTensorValue(*base)) return undefinedShape;
    Value t = *base;
    t.loc = e->loc;
    t.items.clear();
    if (recipe) setRecipe(t, *recipe);
    return t;
  }
  // The expression the size is written in, and whether it is the whole
  // argument list (`torch.randn(m, n)`) or one sequence (`torch.full((m, n), v)`).
  std::vector<const py::Expr*> sizeArgs;
  if (const py::Keyword* k = keyword(*e, "size")) {
    sizeArgs.push_back(k->value.get());
  } else if (kBySize.count(fn)) {
    for (const auto& a : e->elts) sizeArgs.push_back(a.get());
  } else if (fn == "full") {
    if (!e->elts.empty()) sizeArgs.push_back(e->elts[0].get());
  } else if (fn == "randint") {
    // randint(high, size) / randint(low, high, size)
    if (e->elts.size() == 2 || e->elts.size() == 3) sizeArgs.push_back(e->elts.back().get());
  } else {
    return std::nullopt;
  }
  if (sizeArgs.empty()) return undefinedShape;
  std::vector<Value> dims;
  try {
    for (const py::Expr* a : sizeArgs) {
      if (a->kind == py::ExprKind::Starred) return undefinedShape;
      Value v = eval(*a, env);
      if (v.isSequence() && sizeArgs.size() == 1)
        dims = v.elts;
      else
        dims.push_back(v);
    }
  } catch (const EvalError&) {
    return undefinedShape;
  }
  Value t = Value::opaque("torch.Tensor");
  t.loc = e->loc;
  for (const auto& d : dims) {
    if (d.kind != K::Int || d.i < 0) return undefinedShape;
    t.elts.push_back(Value::integer(d.i));
  }
  if (recipe) setRecipe(t, *recipe);
  return t;
}

// The kind of values `torch.FN(...)` makes (`callee` its dotted name), in
// `recipe`, for zeros/ones/full/randint and their *_like forms; arange and
// randperm are returned whole, as their shape comes from those values.
std::optional<Value> Elaborator::torchValues(const std::string& callee, const py::Expr& e, Env& env,
                                             std::optional<ir::InputRecipe>& recipe) {
  std::string fn = callee.substr(6);
  auto number = [&](const py::Expr* x) -> std::optional<double> {
    if (!x) return std::nullopt;
    try {
      Value v = eval(*x, env);
      if (v.kind == K::Int) return static_cast<double>(v.i);
      if (v.kind == K::Float) return v.f;
    } catch (const EvalError&) {
    }
    return std::nullopt;
  };
  auto arg = [&](size_t i, const char* name) -> const py::Expr* {
    if (const py::Keyword* k = keyword(e, name)) return k->value.get();
    return i < e.elts.size() ? e.elts[i].get() : nullptr;
  };
  ir::InputRecipe r;
  r.spelling = callee;
  bool hasRecipe = true;
  using RK = ir::InputRecipe::Kind;
  if (fn == "zeros" || fn == "zeros_like") {
    r.kind = RK::Zeros;
  } else if (fn == "ones" || fn == "ones_like") {
    r.kind = RK::Ones;
  } else if (fn == "full" || fn == "full_like") {
    auto v = number(arg(1, "fill_value"));
    r.kind = RK::Full;
    r.value = v.value_or(0);
    hasRecipe = v.has_value();
  } else if (fn == "randint") {
    // randint(high, size) / randint(low, high, size)
    bool withLow = e.elts.size() == 3 || (e.elts.size() == 2 && keyword(e, "size"));
    auto lo = withLow ? number(arg(0, "low")) : std::optional<double>(0);
    auto hi = number(arg(withLow ? 1 : 0, "high"));
    r.kind = RK::Randint;
    r.low = static_cast<int64_t>(lo.value_or(0));
    r.high = static_cast<int64_t>(hi.value_or(0));
    hasRecipe = lo && hi && r.high > r.low;
  } else if (fn == "arange" || fn == "randperm") {
    // arange(end) / arange(start, end[, step]); randperm(n): 1-D, shape from the values.
    size_t n = e.elts.size();
    auto start = fn == "arange" && n >= 2 ? number(arg(0, "start")) : std::optional<double>(0);
    auto end = number(arg(fn == "arange" && n >= 2 ? 1 : 0, fn == "arange" ? "end" : "n"));
    auto step = fn == "arange" && n >= 3 ? number(arg(2, "step")) : std::optional<double>(1);
    Value unknown =
        Value::undefined("a torch tensor whose shape is not a compile-time constant", e.loc);
    if (!start || !end || !step || *step == 0) return unknown;
    double count = std::ceil((*end - *start) / *step);
    if (!(count >= 0) || count > 1e12) return unknown;
    Value t = Value::opaque("torch.Tensor");
    t.loc = e.loc;
    t.elts.push_back(Value::integer(static_cast<int64_t>(count)));
    r.kind = fn == "arange" ? RK::Arange : RK::Randperm;
    r.value = *start;
    r.step = *step;
    r.high = static_cast<int64_t>(*end);
    setRecipe(t, r);
    return t;
  } else {
    hasRecipe = false;
  }
  if (hasRecipe) recipe = r;
  return std::nullopt;
}

// `t[:k]` / `t[a:b]` of a 1-D torch tensor with constant bounds: its first
// elements keep the recipe (a prefix of a permutation is distinct values);
// another start keeps only the shape.
std::optional<Value> Elaborator::torchPrefix(const py::Expr& e, Env& env) {
  if (!e.lhs || !e.rhs || e.rhs->kind != py::ExprKind::Slice) return std::nullopt;
  auto base = torchTensor(*e.lhs, env);
  if (!base || !isTensorValue(*base) || base->elts.size() != 1) return std::nullopt;
  int64_t n = base->elts[0].i, lo = 0, hi = n;
  try {
    auto bound = [&](const py::Expr& x) {
      Value v = eval(x, env);
      if (v.kind != K::Int) throw EvalError{x.loc, "not an integer"};
      return v.i;
    };
    if (e.rhs->step) return std::nullopt;
    if (e.rhs->lhs) lo = bound(*e.rhs->lhs);
    if (e.rhs->rhs) hi = bound(*e.rhs->rhs);
  } catch (const EvalError&) {
    return std::nullopt;
  }
  if (lo < 0) lo += n;
  if (hi < 0) hi += n;
  lo = std::clamp<int64_t>(lo, 0, n);
  hi = std::clamp<int64_t>(hi, lo, n);
  Value t = *base;
  t.elts = {Value::integer(hi - lo)};
  auto r = recipeOf(*base);
  if (!r || lo != 0) t.items.clear();
  return t;
}

// `make_input((n, 64), dtype=...)` with a helper whose last statement returns
// a torch tensor built from its parameters (upstream's `simulator_safe_randn`):
// that tensor, with the call's arguments bound (nullopt for anything else).
std::optional<Value> Elaborator::helperTensor(const Value& fn, const py::Expr& call, Env& env) {
  const py::Stmt& def = *fn.def;
  if (isPrimFunc(def) || isMacro(def) || def.body.empty() || callDepth_ >= 64)  // as kMaxCallDepth
    return std::nullopt;
  const py::Stmt& last = *def.body.back();
  if (last.kind != py::StmtKind::Return || !last.value) return std::nullopt;
  // Only a body that is that return (after imports and a docstring): other
  // statements could change what the return sees.
  for (size_t i = 0; i + 1 < def.body.size(); ++i) {
    const py::Stmt& st = *def.body[i];
    bool docstring =
        st.kind == py::StmtKind::Expr && st.value && st.value->kind == py::ExprKind::Str;
    if (st.kind != py::StmtKind::Import && st.kind != py::StmtKind::Pass && !docstring)
      return std::nullopt;
  }
  auto local = std::make_shared<Env>();
  local->parent = fn.closure ? fn.closure : moduleEnv_;
  size_t ai = 0;
  for (const auto& p : def.params) {
    if (p.varArgs || p.varKwargs) continue;
    const py::Expr* arg = nullptr;
    if (ai < call.elts.size() && !p.keywordOnly && call.elts[ai]->kind != py::ExprKind::Starred)
      arg = call.elts[ai++].get();
    else if (const py::Keyword* k = keyword(call, p.name))
      arg = k->value.get();
    Value v = Value::undefined("parameter has no value", p.loc);
    try {
      if (arg)
        v = eval(*arg, env);
      else if (p.defaultValue)
        v = eval(*p.defaultValue, *local->parent);
    } catch (const EvalError& err) {
      v = Value::undefined(err.message, err.loc);
    }
    local->bind(p.name, v);
  }
  ++callDepth_;
  auto t = torchTensor(*last.value, *local);
  --callDepth_;
  if (t) t->loc = call.loc;  // notes point at the helper's call, not into it
  return t;
}

Value Elaborator::scanAssignedValue(const py::Stmt& s, Env& env) {
  if (s.kind != py::StmtKind::AugAssign && s.value) {
    if (auto t = torchTensor(*s.value, env)) return *t;
    // `a, b = torch.randn(n), torch.randn(n)`
    if (s.value->kind == py::ExprKind::Tuple) {
      bool anyTensor = false;
      std::vector<Value> elts;
      for (const auto& x : s.value->elts) {
        if (auto t = torchTensor(*x, env)) {
          anyTensor = true;
          elts.push_back(*t);
          continue;
        }
        try {
          elts.push_back(eval(*x, env));
        } catch (const EvalError& err) {
          elts.push_back(Value::undefined(err.message, err.loc));
        }
      }
      if (anyTensor) return Value::tuple(std::move(elts));
    }
  }
  return evalAssignedValue(s, env);
}

// Is `e` the kernel object: the factory call itself, a name bound to it, or
// `tilelang.compile(obj, ...)` / `tilelang.jit(...)(obj)` of it?
static bool isKernelObject(const py::Expr& e, const FactoryCall& fc) {
  if (&e == fc.expr) return true;
  if (e.kind == py::ExprKind::Name) return fc.kernelNames.count(e.id) > 0;
  if (e.kind != py::ExprKind::Call || !e.lhs) return false;
  std::string fn = lastComponent(dotted(*e.lhs));
  if (fn != "compile" && fn != "jit" && fn != "JITKernel") return false;
  if (!e.elts.empty()) return isKernelObject(*e.elts[0], fc);
  for (const auto& k : e.keywords)
    if ((k.name == "func" || k.name == "program") && k.value) return isKernelObject(*k.value, fc);
  return false;
}

bool Elaborator::findKernelObjectCall(const py::Expr& e, Env& env, FactoryCall& fc) {
  if (!fc.followingKernel) return false;
  if (e.kind == py::ExprKind::Lambda || e.kind == py::ExprKind::Comprehension) return false;
  // Arguments run before the call itself.
  for (const auto* list : {&e.elts, &e.keys, &e.values})
    for (const auto& x : *list)
      if (x && findKernelObjectCall(*x, env, fc)) return true;
  for (const auto& k : e.keywords)
    if (k.value && findKernelObjectCall(*k.value, env, fc)) return true;
  for (const py::Expr* x : {e.lhs.get(), e.rhs.get(), e.step.get()})
    if (x && findKernelObjectCall(*x, env, fc)) return true;
  if (e.kind != py::ExprKind::Call || !e.lhs || !isKernelObject(*e.lhs, fc)) return false;
  auto describeArg = [&](const py::Expr& a) {
    KernelCallArg arg;
    arg.loc = a.loc;
    arg.isNone = a.kind == py::ExprKind::None;
    const py::Expr* base = &a;  // `x` in `x.npu()`
    while (base->kind == py::ExprKind::Call && base->lhs &&
           base->lhs->kind == py::ExprKind::Attribute && base->lhs->lhs &&
           keepsShape(base->lhs->id))
      base = base->lhs->lhs.get();
    if (base->kind == py::ExprKind::Name) arg.spelling = base->id;
    if (auto t = torchTensor(a, env); t && isTensorValue(*t)) {
      TorchTensor tensor;
      tensor.madeAt = t->loc;
      tensor.recipe = recipeOf(*t);
      for (const auto& d : t->elts) tensor.shape.push_back(d.i);
      arg.tensor = std::move(tensor);
    }
    return arg;
  };
  KernelObjectCall call;
  call.loc = e.loc;
  for (const auto& a : e.elts) {
    if (a->kind == py::ExprKind::Starred) break;  // later positions are unknown
    call.positional.push_back(describeArg(*a));
  }
  for (const auto& k : e.keywords)
    if (!k.name.empty() && k.value) call.keywords.push_back({k.name, describeArg(*k.value)});
  fc.kernelCall = std::move(call);
  fc.followingKernel = false;
  return true;
}

void Elaborator::followKernelObject(const py::StmtList& body, size_t from, Env& env,
                                    FactoryCall& fc, bool fromHoldsCall) {
  for (size_t i = from; i < body.size() && fc.followingKernel; ++i) {
    if (!scanBudget_) {
      fc.followingKernel = false;
      return;
    }
    --scanBudget_;
    const py::Stmt& s = *body[i];
    switch (s.kind) {
      case py::StmtKind::Assign:
      case py::StmtKind::AnnAssign:
      case py::StmtKind::AugAssign: {
        if (!s.value) break;
        if (findKernelObjectCall(*s.value, env, fc)) return;
        if (s.kind == py::StmtKind::Assign && s.targets.size() == 1 &&
            s.targets[0]->kind == py::ExprKind::Name) {
          const std::string& name = s.targets[0]->id;
          if (isKernelObject(*s.value, fc)) {
            // Not evaluated: the factory is not run as host code.
            fc.kernelNames.insert(name);
            env.bind(name, Value::opaque("kernel"));
            break;
          }
          fc.kernelNames.erase(name);
        }
        if (i == from && fromHoldsCall) break;  // the factory call is not run as host code
        bindAssignTargets(s, scanAssignedValue(s, env), env);
        break;
      }
      case py::StmtKind::Expr:
        if (s.value) findKernelObjectCall(*s.value, env, fc);
        break;
      case py::StmtKind::If: {
        if (s.iter && findKernelObjectCall(*s.iter, env, fc)) return;
        std::optional<bool> cond;
        try {
          if (s.iter) {
            Value c = eval(*s.iter, env);
            if (c.isConstant()) cond = truthy(c, s.iter->loc);
          }
        } catch (const EvalError&) {
        }
        if (!cond || *cond) followKernelObject(s.body, 0, env, fc, false);
        if (!cond || !*cond) followKernelObject(s.orelse, 0, env, fc, false);
        break;
      }
      case py::StmtKind::For: {
        if (s.iter && findKernelObjectCall(*s.iter, env, fc)) return;
        // The first iteration, with the loop variables of the first item.
        Value first = Value::undefined("loop variable", s.loc);
        try {
          if (!s.iter) throw EvalError{s.loc, "no iterable"};
          Value it = eval(*s.iter, env);
          if (it.isSequence() && !it.elts.empty()) first = it.elts[0];
        } catch (const EvalError&) {
        }
        for (const auto& t : s.targets) {
          try {
            assignTargets(*t, first, env, s.loc);
          } catch (const EvalError& e) {
            assignTargets(*t, Value::undefined(e.message, e.loc), env, s.loc);
          }
        }
        followKernelObject(s.body, 0, env, fc, false);
        break;
      }
      case py::StmtKind::While:
      case py::StmtKind::With:
        if (s.iter && findKernelObjectCall(*s.iter, env, fc)) return;
        for (const auto& w : s.withItems)
          if (w.context && findKernelObjectCall(*w.context, env, fc)) return;
        followKernelObject(s.body, 0, env, fc, false);
        break;
      case py::StmtKind::Return:
        if (s.value) findKernelObjectCall(*s.value, env, fc);
        fc.followingKernel = false;
        return;
      case py::StmtKind::Unparsed:
        if (s.isTry) followKernelObject(s.body, 0, env, fc, false);
        break;
      default:
        break;
    }
  }
}

std::optional<std::map<std::string, int64_t>> Elaborator::dynamicSizesFromCall(
    const py::Stmt& def, const std::shared_ptr<Env>& factoryEnv, std::optional<FactoryCall>& fc) {
  std::map<std::string, int64_t> none;
  // (Without T.dynamic sizes the call still tells the kinds of its tensors' values.)
  if (!fc) fc = findFactoryCall(def);
  if (!fc || !fc->kernelCall) return none;
  const KernelObjectCall& call = *fc->kernelCall;

  // The factory body run once more, on a copy of its parameters, to see the
  // kernel's declared parameter shapes with their T.dynamic names (the real
  // run below then sees the sizes as constants). Factory code has no effect
  // outside its environment; a failure here is reported by the real run. A
  // factory that returns a nested one (`return build(16)`) is followed into it.
  std::vector<std::shared_ptr<Env>> probes;  // alive while their functions are read
  auto runProbe = [&](const py::Stmt& factory, std::shared_ptr<Env> env) {
    const size_t unreadableBefore = unreadableImports_.size();  // the real run records its own
    try {
      execDefinitions(factory.body, *env, /*isFactory=*/true);
    } catch (const ReturnSignal&) {
    } catch (const EvalError&) {
    }
    unreadableImports_.resize(unreadableBefore);
    probes.push_back(std::move(env));
  };
  auto first = std::make_shared<Env>();
  first->parent = factoryEnv->parent;
  first->names = factoryEnv->names;
  runProbe(def, first);
  const py::Stmt* level = &def;
  const Value* kernel = nullptr;
  for (int depth = 0; depth < 4 && !kernel; ++depth) {
    Env& probe = *probes.back();
    // The prim_func the factory returns by name, else its only one.
    std::vector<std::string> returned;
    returnedNames(level->body, returned);
    for (const auto& name : returned) {
      auto it = probe.names.find(name);
      if (it != probe.names.end() && it->second.kind == K::Function && it->second.def &&
          isPrimFunc(*it->second.def)) {
        kernel = &it->second;
        break;
      }
    }
    if (kernel) break;
    // `return build(args)`: the nested factory with those arguments.
    const py::Expr* nestedCall = nullptr;
    const Value* nested = nullptr;
    for (const auto& st : level->body) {
      if (st->kind != py::StmtKind::Return || !st->value || st->value->kind != py::ExprKind::Call ||
          st->value->lhs->kind != py::ExprKind::Name)
        continue;
      auto it = probe.names.find(st->value->lhs->id);
      if (it == probe.names.end() || it->second.kind != K::Function || !it->second.def ||
          isPrimFunc(*it->second.def))
        continue;
      nestedCall = st->value.get();
      nested = &it->second;
      break;
    }
    if (!nested) {
      for (const auto& [name, v] : probe.names) {
        if (v.kind != K::Function || !v.def || !isPrimFunc(*v.def)) continue;
        if (kernel) return none;  // several kernels and none returned by name
        kernel = &v;
      }
      break;
    }
    auto values = constantArguments(*nested->def, *nestedCall, probe);
    if (!values) return none;
    auto next = std::make_shared<Env>();
    next->parent = nested->closure;
    for (const auto& p : nested->def->params) {
      if (p.varArgs || p.varKwargs) continue;
      Value v = Value::undefined("parameter has no value", p.loc);
      for (const auto& [name, given] : *values)
        if (name == p.name) v = given;
      if (v.kind == K::Undefined && p.defaultValue && nested->closure) {
        try {
          v = eval(*p.defaultValue, *nested->closure);
        } catch (const EvalError&) {
        }
      }
      next->bind(p.name, v);
    }
    level = nested->def;
    runProbe(*level, next);
  }
  if (!kernel) return none;
  const py::Stmt& primFunc = *kernel->def;

  std::vector<DeclaredParam> params = declaredParams(primFunc, [&](const py::Expr& e) {
    auto annEnv = std::make_shared<Env>();
    annEnv->parent = kernel->closure;
    return eval(e, *annEnv);
  });

  std::vector<Found> found;  // first-found order
  std::vector<std::pair<std::string, ir::InputRecipe>> recipes;
  auto consider = [&](const DeclaredParam& dp, const KernelCallArg& arg,
                      const std::string& argText) {
    if (arg.tensor && arg.tensor->recipe && dp.shape &&
        dp.shape->size() == arg.tensor->shape.size())
      recipes.push_back({dp.name, *arg.tensor->recipe});
    return considerArgument(found, dp, arg, argText, primFunc.name, diags_);
  };
  for (size_t i = 0; i < call.positional.size() && i < params.size(); ++i) {
    const KernelCallArg& arg = call.positional[i];
    std::string text = arg.spelling.empty() ? fmt::format("argument {}", i + 1)
                                            : fmt::format("'{}'", arg.spelling);
    if (!consider(params[i], arg, text)) return std::nullopt;
  }
  for (const auto& [kw, arg] : call.keywords) {
    for (const auto& dp : params) {
      if (dp.name != kw) continue;
      std::string text = arg.spelling.empty() ? fmt::format("argument '{}'", kw)
                                              : fmt::format("'{}'", arg.spelling);
      if (!consider(dp, arg, text)) return std::nullopt;
    }
  }
  reportInputs(recipes, primFunc.name, call, diags_);
  for (auto& [name, r] : recipes) inputsFromCall_[name] = r;
  if (found.empty()) return none;

  return reportSizes(found, primFunc.name, call, fc->notes, diags_);
}

}  // namespace tilesched::frontend
