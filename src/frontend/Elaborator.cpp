// Elaboration: runs the module and factory code that can be evaluated at
// compile time, then builds the tile IR of every `@T.prim_func` kernel.
// See Elaborator.h for the contract; tile operations live in TileOps.cpp.
#include "frontend/Elaborator.h"
#include "frontend/ConstantBounds.h"
#include "frontend/ManualRings.h"
#include "frontend/NeverWritten.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"
#include "frontend/Parser.h"
#include "ir/Verifier.h"

namespace tilesched::frontend {

using K = Value::Kind;
using namespace ir;

namespace {

// The T.dynamic sizes an expression reads, in first-use order.
void dynamicNames(const Expr& e, std::vector<std::string>& out) {
  if (!e) return;
  if (e->kind == ExprKind::VarRef && e->var && e->var->kind == VarKind::Dynamic &&
      std::find(out.begin(), out.end(), e->var->name) == out.end())
    out.push_back(e->var->name);
  for (const auto& o : e->operands) dynamicNames(o, out);
}

// `m = T.dynamic("m")` run outside a kernel: a size that becomes the kernel's
// dynamic variable where a kernel reads the name.
bool isDeferredDynamic(const Value& v) {
  return v.kind == Value::Kind::Opaque && v.s == "T.dynamic";
}

constexpr int kMaxCallDepth = 64;
// Looking for a factory's call: parameter sets (and loop iterations) tried per
// test function (loop), and statements visited in all.
constexpr size_t kMaxParamSets = 64;
constexpr size_t kScanBudget = 100000;
// Constant loops are unrolled while the kernel is built; beyond this, write a T.serial loop.
constexpr size_t kMaxUnroll = 4096;
// Loop iterations a compile-time helper function may run in all.
constexpr size_t kMaxHelperIterations = size_t(1)
                                        << 16;  // a sanitizer build runs 2^16 in about a second

// A buffer extent as an IR constant: int32 when it fits, int64 beyond (an
// int32 immediate would wrap 2^31 to -2^31 and 2^40 to 0).
Expr extentImm(int64_t extent) {
  return intImm(extent, extent > std::numeric_limits<int32_t>::max() ? DType::Int64 : DType::Int32);
}

// Python's int.bit_length().
int64_t bitLength(int64_t v) {
  uint64_t m = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  int64_t n = 0;
  while (m) {
    ++n;
    m >>= 1;
  }
  return n;
}

bool isDialectModule(const std::string& module) {
  return module == "tilelang.language" || module == "tilelang.ascend.language" ||
         module == "tilelang.language.ascend";
}

std::string dottedName(const py::Expr& e) {
  if (e.kind == py::ExprKind::Name) return e.id;
  if (e.kind == py::ExprKind::Attribute && e.lhs) {
    std::string base = dottedName(*e.lhs);
    return base.empty() ? "" : base + "." + e.id;
  }
  if (e.kind == py::ExprKind::Call && e.lhs) return dottedName(*e.lhs);
  return "";
}

const char* kUnsupportedDialect[] = {"Stage", "Task", "assume_no_conflict", "dual_copy", "vmi"};

}  // namespace

void Elaborator::addMacroNotes(Diagnostic& d) {
  // Innermost call site first; a recursive macro's repeated call site once.
  const std::pair<std::string, SourceLoc>* last = nullptr;
  for (auto it = macroStack_.rbegin(); it != macroStack_.rend(); ++it) {
    if (last && last->first == it->first && last->second.line == it->second.line &&
        last->second.col == it->second.col)
      continue;
    d.notes.push_back({it->second, fmt::format("in macro '{}' inlined here", it->first)});
    last = &*it;
  }
}

void Elaborator::error(SourceLoc loc, std::string msg) {
  if (msg.empty()) return;  // a use of a name whose assignment failed (reported there)
  Diagnostic& d = diags_.error(loc, std::move(msg));
  addMacroNotes(d);
}

void Elaborator::warning(SourceLoc loc, std::string msg) {
  Diagnostic& d = diags_.warning(loc, std::move(msg));
  addMacroNotes(d);
}

// ------------------------------------------------------------ module level

std::optional<Program> Elaborator::run() {
  py::Module module = py::parseModule(*file_, diags_);
  if (diags_.hasErrors()) return std::nullopt;
  runModule(module);
  for (const auto& [name, value] : options_.defines) {
    if (std::find(usedDefines_.begin(), usedDefines_.end(), name) == usedDefines_.end())
      diags_.warning({},
                     fmt::format("-D {} does not name a parameter of any kernel factory", name));
  }
  if (!diags_.hasErrors() && kernels_.empty() && !reportUnreadableImport()) {
    if (!options_.func.empty()) {
      std::string list;
      for (const auto& n : kernelNames_) list += (list.empty() ? "" : ", ") + n;
      std::vector<std::string> bare;
      for (const auto& n : kernelNames_) bare.push_back(n.substr(0, n.find(' ')));
      std::string near = nearestName(options_.func, bare);
      error({}, fmt::format("no kernel named '{}' in this file{}{}", options_.func,
                            near.empty() ? "" : "; did you mean '" + near + "'?",
                            list.empty() ? "" : " (its kernels: " + list + ")"));
    } else
      error({}, "no @T.prim_func kernel found in this file");
  }
  if (diags_.hasErrors()) return std::nullopt;
  for (const auto& k : kernels_) checkConstantIndices(k, diags_);
  if (diags_.hasErrors()) return std::nullopt;
  for (const auto& k : kernels_) {
    warnNeverWrittenReads(k, diags_);
    warnUnreflectedManualRings(k, diags_);
  }
  for (const auto& k : kernels_) {
    auto problems = verifyKernel(k);
    for (const auto& p : problems) error(k.loc, "internal error: IR verifier: " + p);
  }
  if (diags_.hasErrors()) return std::nullopt;
  Program program;
  program.file = file_;
  program.kernels = std::move(kernels_);
  for (const ImportedModule* m : importOrder_) program.importedFiles.push_back(m->file);
  return program;
}

std::shared_ptr<Env> Elaborator::newModuleEnv(const std::string& moduleName) {
  auto env = std::make_shared<Env>();
  for (const char* b : {"min",
                        "max",
                        "abs",
                        "int",
                        "float",
                        "bool",
                        "str",
                        "len",
                        "range",
                        "tuple",
                        "list",
                        "print",
                        "isinstance",
                        "getattr",
                        "ValueError",
                        "AssertionError",
                        "NotImplementedError",
                        "RuntimeError",
                        "TypeError",
                        "Exception"})
    env->bind(b, Value::dialect(std::string("builtins.") + b));
  env->bind("True", Value::boolean(true));
  env->bind("__name__", Value::str(moduleName));
  return env;
}

void Elaborator::runModule(const py::Module& m) {
  module_ = &m;
  moduleEnv_ = newModuleEnv("tilesched");
  execDefinitions(m.body, *moduleEnv_, /*isFactory=*/false);

  for (const auto& s : m.body)
    if (s->kind == py::StmtKind::FunctionDef)
      for (const auto& d : s->decorators)
        if (dottedName(*d).find("fixture") != std::string::npos) fixtureNames_.insert(s->name);

  // Kernels: module-level prim_funcs, and the prim_funcs that factories define.
  // Only the factories compiled run: the one `--func` names (or that holds the
  // prim_func it names), else every factory that is not a test.
  for (const auto& s : m.body) {
    if (s->kind == py::StmtKind::Import) {
      // Factories and prim_funcs imported from a module next to the file, by the
      // name the import binds (`from lib import gemm as gemm_l0` → gemm_l0).
      for (const auto& n : s->importNames) {
        std::string bound = n.alias;
        if (bound.empty() && s->fromImport) bound = n.module.substr(n.module.rfind('.') + 1);
        auto it = moduleEnv_->names.find(bound);
        if (bound.empty() || it == moduleEnv_->names.end()) continue;
        const Value& v = it->second;
        if (v.kind != K::Function || !v.def || !v.def->loc.file || compiledDefs_.count(v.def))
          continue;
        const py::Stmt& def = *v.def;
        bool named = options_.func == bound || options_.func == def.name;
        if (isPrimFunc(def)) {
          if (options_.func.empty() || named) {
            compiledDefs_.insert(&def);
            buildPrimFunc(def, v.closure, "");
          }
          continue;
        }
        if (isMacro(def) || !definesDeep(def.body)) continue;
        std::function<void(const py::Stmt&)> noteParams = [&](const py::Stmt& d) {
          for (const auto& p : d.params) usedDefines_.push_back(p.name);
          for (const auto& inner : d.body)
            if (inner->kind == py::StmtKind::FunctionDef && !isPrimFunc(*inner)) noteParams(*inner);
        };
        noteParams(def);
        bool wanted = options_.func.empty() || named;
        if (options_.func.empty() && isTestFunction(def)) continue;
        if (!wanted && !definesNamed(def.body, options_.func)) continue;
        compiledDefs_.insert(&def);
        if (options_.func.empty() && !hasParameterValues(def)) {
          // Imported for the file's own code, which never calls it with constants:
          // compiled (to say which values are missing) only if nothing else is.
          deferredImports_.push_back({&def, v.closure, bound});
          continue;
        }
        runFactory(def, v.closure, bound, wanted, nullptr, nullptr);
      }
      continue;
    }
    if (s->kind != py::StmtKind::FunctionDef) continue;
    if (isPrimFunc(*s)) {
      kernelNames_.push_back(s->name + " (prim_func)");
      if (options_.func.empty() || options_.func == s->name) buildPrimFunc(*s, moduleEnv_, "");
      continue;
    }
    if (!definesDeep(s->body)) continue;
    if (!isTestFunction(*s)) kernelNames_.push_back(s->name + " (factory)");
    // A -D naming a parameter of a factory that is not compiled is not a typo.
    std::function<void(const py::Stmt&)> noteParams = [&](const py::Stmt& def) {
      for (const auto& p : def.params) usedDefines_.push_back(p.name);
      for (const auto& inner : def.body)
        if (inner->kind == py::StmtKind::FunctionDef && !isPrimFunc(*inner)) noteParams(*inner);
    };
    noteParams(*s);
    bool wanted = options_.func.empty() || options_.func == s->name;
    if (options_.func.empty() && isTestFunction(*s)) continue;
    if (!wanted && !definesNamed(s->body, options_.func)) continue;
    runFactory(*s, moduleEnv_, s->name, wanted, nullptr, nullptr);
  }
  compileImported(m);
  if (kernels_.empty() && !diags_.hasErrors())
    for (const auto& d : deferredImports_)
      runFactory(*d.def, d.closure, d.bound, true, nullptr, nullptr);
}

bool Elaborator::hasParameterValues(const py::Stmt& def) {
  for (const auto& p : def.params) {
    if (p.varArgs || p.varKwargs || p.defaultValue) continue;
    bool defined = false;
    for (const auto& x : options_.defines) defined |= x.first == p.name;
    if (!defined) return findFactoryCall(def).has_value();
  }
  return true;
}

// The factories of the imported modules that the file does not import by name
// but reaches: `run_example()` imported from example.py calls `example(1024)`.
// Compiled when the file's code calls them with constant arguments (through the
// module's functions it calls), as `pytest` or `python file.py` would, or when
// --func names them.
void Elaborator::compileImported(const py::Module&) {
  for (size_t i = 0; i < importOrder_.size(); ++i) {
    ImportedModule* mod = importOrder_[i];
    for (const auto& s : mod->ast.body) {
      if (s->kind != py::StmtKind::FunctionDef || compiledDefs_.count(s.get())) continue;
      if (isPrimFunc(*s) || isMacro(*s) || !definesDeep(s->body) || isTestFunction(*s)) continue;
      for (const auto& p : s->params) usedDefines_.push_back(p.name);
      bool wanted;
      if (!options_.func.empty()) {
        wanted = options_.func == s->name;
        if (!wanted && !definesNamed(s->body, options_.func)) continue;
      } else {
        if (!findFactoryCall(*s)) continue;
        wanted = true;
      }
      compiledDefs_.insert(s.get());
      runFactory(*s, mod->env, s->name, wanted, nullptr, nullptr);
    }
  }
}

bool Elaborator::reportUnreadableImport() {
  if (unreadableImports_.empty() || !module_) return false;
  // Does the file read `name` anywhere but in its imports?
  std::function<bool(const py::Expr*, const std::string&)> readsExpr =
      [&](const py::Expr* e, const std::string& name) -> bool {
    if (!e) return false;
    if (e->kind == py::ExprKind::Name && e->id == name) return true;
    for (const auto* list : {&e->elts, &e->keys, &e->values})
      for (const auto& x : *list)
        if (readsExpr(x.get(), name)) return true;
    for (const auto& k : e->keywords)
      if (readsExpr(k.value.get(), name)) return true;
    for (const auto& part : e->fstrParts)
      if (readsExpr(part.expr.get(), name)) return true;
    return readsExpr(e->lhs.get(), name) || readsExpr(e->rhs.get(), name) ||
           readsExpr(e->step.get(), name);
  };
  std::function<bool(const py::StmtList&, const std::string&)> reads =
      [&](const py::StmtList& body, const std::string& name) -> bool {
    for (const auto& s : body) {
      for (const auto& t : s->targets)
        if (readsExpr(t.get(), name)) return true;
      for (const auto& d : s->decorators)
        if (readsExpr(d.get(), name)) return true;
      for (const auto& w : s->withItems)
        if (readsExpr(w.context.get(), name)) return true;
      for (const auto& p : s->params)
        if (readsExpr(p.defaultValue.get(), name)) return true;
      if (readsExpr(s->value.get(), name) || readsExpr(s->iter.get(), name) ||
          reads(s->body, name) || reads(s->orelse, name))
        return true;
    }
    return false;
  };
  bool reported = false;
  for (const auto& u : unreadableImports_) {
    for (const auto& name : u.bound) {
      if (!reads(module_->body, name)) continue;
      error(u.loc, u.message);
      reported = true;
      break;
    }
  }
  return reported;
}

bool Elaborator::isTestFunction(const py::Stmt& def) {
  if (def.name.rfind("test", 0) == 0) return true;
  for (const auto& d : def.decorators)
    if (dottedName(*d).rfind("pytest", 0) == 0) return true;
  for (const auto& p : def.params)
    if (fixtureNames_.count(p.name)) return true;
  return false;
}

bool Elaborator::definesDeep(const py::StmtList& body) {
  for (const auto& s : body) {
    if (s->kind == py::StmtKind::FunctionDef &&
        (isPrimFunc(*s) || (!isMacro(*s) && definesDeep(s->body))))
      return true;
    if (s->kind == py::StmtKind::If && (definesDeep(s->body) || definesDeep(s->orelse)))
      return true;
    if (s->kind == py::StmtKind::With && definesDeep(s->body)) return true;
  }
  return false;
}

bool Elaborator::definesNamed(const py::StmtList& body, const std::string& name) {
  for (const auto& s : body) {
    if (s->kind == py::StmtKind::FunctionDef &&
        (s->name == name || (!isPrimFunc(*s) && definesNamed(s->body, name))))
      return true;
    if (s->kind == py::StmtKind::If &&
        (definesNamed(s->body, name) || definesNamed(s->orelse, name)))
      return true;
    if (s->kind == py::StmtKind::With && definesNamed(s->body, name)) return true;
  }
  return false;
}

void Elaborator::runFactory(const py::Stmt& def, const std::shared_ptr<Env>& parent,
                            const std::string& factoryName, bool wanted, const py::Expr* call,
                            Env* callEnv) {
  auto env = std::make_shared<Env>();
  env->parent = parent;
  // A nested factory's values from the enclosing factory's `return inner(...)`.
  std::map<std::string, Value> fromCall;
  if (call && callEnv) {
    try {
      if (auto values = constantArguments(def, *call, *callEnv))
        for (auto& [name, v] : *values) fromCall[name] = v;
    } catch (const EvalError&) {
    }
  }
  std::vector<const py::Param*> missing;
  for (const auto& p : def.params) {
    if (p.varArgs || p.varKwargs) continue;
    const std::pair<std::string, std::string>* d = nullptr;
    for (const auto& x : options_.defines)
      if (x.first == p.name) d = &x;
    if (d) {
      usedDefines_.push_back(p.name);
      DiagnosticEngine scratch;
      auto parsed = py::parseExpressionText(d->second, scratch);
      Value v;
      try {
        if (!parsed) throw EvalError{{}, "not an expression"};
        Env literalEnv;
        literalEnv.parent = moduleEnv_;
        v = eval(*parsed, literalEnv);
        if (!v.isConstant()) throw EvalError{{}, "not a constant"};
      } catch (const EvalError&) {
        v = Value::str(d->second);  // `-D dtype=float16`: a bare dtype name is its string
        // Anything else is a typo (`-D N=1O24`) or a number Python ints hold
        // but a kernel cannot: an error that says which.
        if (!parseDType(d->second)) {
          bool digits = !d->second.empty() &&
                        std::all_of(d->second.begin(), d->second.end(),
                                    [](char c) { return (c >= '0' && c <= '9') || c == '_'; });
          error({}, digits ? fmt::format("-D {}={}: integer literal does not fit in 64 bits",
                                         p.name, d->second)
                           : fmt::format("-D {}={} is not a Python literal; a string is written "
                                         "-D '{}=\"{}\"'",
                                         p.name, d->second, p.name, d->second));
          v = Value::undefined(kFailedBinding, {});  // its uses fail silently: reported here
        }
      }
      env->bind(p.name, v);
    } else if (fromCall.count(p.name)) {
      env->bind(p.name, fromCall[p.name]);
    } else if (p.defaultValue) {
      try {
        env->bind(p.name, eval(*p.defaultValue, *parent));
      } catch (const EvalError& e) {
        env->bind(p.name, Value::undefined(e.message, e.loc));
      }
    } else {
      missing.push_back(&p);
    }
  }
  std::optional<FactoryCall> fc;  // the file's own call of the factory, when looked for
  if (!missing.empty() && wanted && !call) {
    // As `python file.py` would: the values of the file's own first constant call.
    fc = findFactoryCall(def);
    if (fc) {
      std::vector<std::string> shown;
      for (const auto& [name, v] : fc->values) {
        bool defined = false;
        for (const auto& x : options_.defines) defined |= x.first == name;
        if (defined) continue;
        env->bind(name, v);
        shown.push_back(name + "=" + pyRepr(v));
      }
      std::string list;
      for (size_t i = 0; i < shown.size(); ++i) list += (i ? ", " : "") + shown[i];
      Diagnostic& n = diags_.warning(
          fc->loc, fmt::format("factory '{}' takes {} from its call at line {}; -D NAME=VALUE "
                               "overrides them",
                               def.name, list, fc->loc.line));
      n.severity = Severity::Note;
      n.notes = fc->notes;
      missing.clear();
    }
  }
  if (!missing.empty()) {
    if (!wanted) return;
    for (const py::Param* p : missing)
      error(p->loc, fmt::format("parameter '{}' of kernel factory '{}' has no default; pass -D "
                                "{}=VALUE",
                                p->name, def.name, p->name));
    return;
  }
  // T.dynamic sizes that the tensors of the file's own kernel call give, used
  // like -D values while this factory runs (DynamicFromCall.cpp).
  struct RestoreDynamic {
    std::map<std::string, int64_t>& sizes;
    std::map<std::string, int64_t> saved;
    ~RestoreDynamic() { sizes = std::move(saved); }
  } restoreDynamic{dynamicFromCall_, dynamicFromCall_};
  if (!call) {  // (a factory run for the prim_func --func names is not `wanted`)
    auto sizes = dynamicSizesFromCall(def, env, fc);
    if (!sizes) return;
    for (const auto& [name, value] : *sizes) dynamicFromCall_[name] = value;
  }
  size_t errorsBefore = diags_.numErrors();
  try {
    execDefinitions(def.body, *env, /*isFactory=*/true);
  } catch (const ReturnSignal&) {
  } catch (const EvalError& e) {
    error(e.loc, e.message);
  }
  if (diags_.numErrors() != errorsBefore) return;
  // Build the prim_funcs the factory defined (bound in its environment), and run the
  // nested factories (`@tilelang.jit def inner(block): @T.prim_func ...`) it defined.
  std::vector<std::pair<std::string, Value>> defined;
  for (const auto& [name, v] : env->names)
    if (v.kind == K::Function && v.def && v.def->kind == py::StmtKind::FunctionDef &&
        (isPrimFunc(*v.def) || (!isMacro(*v.def) && definesDeep(v.def->body))))
      defined.push_back({name, v});
  std::sort(defined.begin(), defined.end(), [](const auto& a, const auto& b) {
    return a.second.def->loc.line < b.second.def->loc.line;
  });
  for (const auto& entry : defined) {
    const Value& v = entry.second;  // a plain reference: lambdas below capture it
    if (isPrimFunc(*v.def)) {
      if (!wanted && options_.func != v.def->name) continue;
      buildPrimFunc(*v.def, v.closure, factoryName);
      continue;
    }
    bool innerWanted = wanted || options_.func == v.def->name;
    if (!innerWanted && !definesNamed(v.def->body, options_.func)) continue;
    // The factory's `return inner(...)`, if it calls the nested factory.
    const py::Expr* innerCall = nullptr;
    std::function<void(const py::StmtList&)> findReturn = [&](const py::StmtList& body) {
      for (const auto& st : body) {
        if (st->kind == py::StmtKind::Return && st->value &&
            st->value->kind == py::ExprKind::Call && st->value->lhs->kind == py::ExprKind::Name &&
            st->value->lhs->id == v.def->name && !innerCall)
          innerCall = st->value.get();
        if (st->kind == py::StmtKind::If) {
          findReturn(st->body);
          findReturn(st->orelse);
        }
      }
    };
    findReturn(def.body);
    runFactory(*v.def, v.closure, factoryName, innerWanted, innerCall, env.get());
  }
}

std::optional<std::vector<std::pair<std::string, Value>>> Elaborator::constantArguments(
    const py::Stmt& def, const py::Expr& call, Env& env) {
  std::vector<std::pair<std::string, Value>> out;
  size_t ai = 0;
  for (const auto& a : call.elts)
    if (a->kind == py::ExprKind::Starred) return std::nullopt;
  for (const auto& k : call.keywords)
    if (k.name.empty()) return std::nullopt;
  for (const auto& p : def.params) {
    if (p.varArgs || p.varKwargs) continue;
    const py::Expr* arg = nullptr;
    if (ai < call.elts.size() && !p.keywordOnly)
      arg = call.elts[ai++].get();
    else if (const py::Keyword* k = keyword(call, p.name))
      arg = k->value.get();
    if (!arg) continue;
    Value v;
    try {
      v = eval(*arg, env);
    } catch (const EvalError&) {
      return std::nullopt;
    }
    if (!v.isConstant()) return std::nullopt;
    out.push_back({p.name, v});
  }
  if (ai < call.elts.size()) return std::nullopt;
  return out;
}

std::optional<FactoryCall> Elaborator::findFactoryCall(const py::Stmt& factory) {
  if (!module_) return std::nullopt;
  std::optional<FactoryCall> found;
  std::set<const py::Stmt*> visited;  // the functions being scanned (no recursion)
  argparseDefaults_.clear();
  scanBudget_ = kScanBudget;
  // First what `python file.py` runs: the module's statements (the __main__
  // block too) and the module functions they call.
  auto top = std::make_shared<Env>();
  top->parent = moduleEnv_;
  scanForCall(module_->body, *top, factory, found, visited, 0, true);
  // Then the other functions (tests, benchmarks) in file order, their
  // parameters from their defaults, then from each @pytest.mark.parametrize
  // parameter set in pytest's order until one reaches the call.
  for (const auto& s : module_->body) {
    if (found || !scanBudget_) break;
    if (s->kind != py::StmtKind::FunctionDef || s.get() == &factory || isPrimFunc(*s) ||
        isMacro(*s))
      continue;
    std::vector<ParamSet> sets = parametrizeSets(*s, *moduleEnv_);
    if (sets.empty()) sets.emplace_back();
    for (const ParamSet& set : sets) {
      if (found || !scanBudget_) break;
      auto local = std::make_shared<Env>();
      local->parent = moduleEnv_;
      for (const auto& p : s->params) {
        if (p.varArgs || p.varKwargs) continue;
        Value v = Value::undefined("parameter has no value", p.loc);
        if (p.defaultValue) {
          try {
            v = eval(*p.defaultValue, *moduleEnv_);
          } catch (const EvalError&) {
          }
        }
        local->bind(p.name, v);
      }
      for (const auto& [name, v] : set.values) local->bind(name, v);
      visited.insert(s.get());
      scanForCall(s->body, *local, factory, found, visited, 1, false);
      visited.erase(s.get());
      if (found) found->notes = set.picks;
    }
  }
  return found;
}

std::vector<ParamSet> Elaborator::parametrizeSets(const py::Stmt& def, Env& env) {
  // One decorator: its names and, per parameter set, one value per name.
  struct Axis {
    SourceLoc loc;
    std::vector<std::string> names;
    std::vector<std::vector<Value>> sets;
  };
  std::vector<Axis> axes;
  for (const auto& d : def.decorators) {
    if (d->kind != py::ExprKind::Call) continue;
    std::string n = dottedName(*d->lhs);
    if (n.size() < 11 || n.compare(n.size() - 11, 11, "parametrize") != 0) continue;
    const py::Expr* namesExpr = d->elts.size() > 0 ? d->elts[0].get() : nullptr;
    const py::Expr* valuesExpr = d->elts.size() > 1 ? d->elts[1].get() : nullptr;
    if (const py::Keyword* k = keyword(*d, "argnames")) namesExpr = k->value.get();
    if (const py::Keyword* k = keyword(*d, "argvalues")) valuesExpr = k->value.get();
    if (!namesExpr || !valuesExpr) continue;
    Axis axis;
    axis.loc = d->loc;
    try {
      Value names = eval(*namesExpr, env);
      if (names.kind == K::Str) {
        // "a, b" or "a,b"
        std::string cur;
        for (char c : names.s + ",") {
          if (c == ',') {
            if (!cur.empty()) axis.names.push_back(cur);
            cur.clear();
          } else if (!std::isspace(static_cast<unsigned char>(c))) {
            cur += c;
          }
        }
      } else if (names.isSequence()) {
        for (const auto& x : names.elts)
          if (x.kind == K::Str) axis.names.push_back(x.s);
      }
    } catch (const EvalError&) {
    }
    if (axis.names.empty()) continue;
    std::vector<Value> values;
    if (valuesExpr->kind == py::ExprKind::List || valuesExpr->kind == py::ExprKind::Tuple) {
      // Element by element, so one set that cannot be evaluated leaves the others.
      for (const auto& x : valuesExpr->elts) {
        try {
          values.push_back(eval(*x, env));
        } catch (const EvalError& err) {
          values.push_back(Value::undefined(err.message, err.loc));
        }
      }
    } else {
      try {
        Value v = eval(*valuesExpr, env);
        if (v.isSequence()) values = v.elts;
      } catch (const EvalError&) {
      }
    }
    for (const auto& v : values) {
      bool param = v.kind == K::Tuple && v.s == "pytest.param";
      std::vector<Value> set;
      if (axis.names.size() == 1 && !param)
        set.push_back(v);
      else if (v.isSequence() && v.elts.size() == axis.names.size())
        set = v.elts;
      else
        set.assign(axis.names.size(),
                   Value::undefined("the parameter set does not match the names", d->loc));
      axis.sets.push_back(std::move(set));
    }
    if (!axis.sets.empty()) axes.push_back(std::move(axis));
  }
  std::vector<ParamSet> out;
  if (axes.empty()) return out;
  // pytest's order: the top decorator's sets vary fastest.
  std::vector<size_t> idx(axes.size(), 0);
  while (out.size() < kMaxParamSets) {
    ParamSet ps;
    for (size_t i = 0; i < axes.size(); ++i) {
      const Axis& a = axes[i];
      std::string text;
      for (size_t j = 0; j < a.names.size(); ++j) {
        const Value& v = a.sets[idx[i]][j];
        ps.values.push_back({a.names[j], v});
        text += fmt::format("{}{}={}", j ? ", " : "", a.names[j],
                            v.kind == K::Undefined ? "?" : describe(v));
      }
      ps.picks.push_back(
          {a.loc, fmt::format("with parameter set {} of this @pytest.mark.parametrize ({})",
                              idx[i] + 1, text)});
    }
    out.push_back(std::move(ps));
    size_t i = 0;
    while (i < axes.size() && ++idx[i] == axes[i].sets.size()) idx[i++] = 0;
    if (i == axes.size()) break;
  }
  return out;
}

const Value* Elaborator::calleeFunction(const py::Expr& callee, Env& env) {
  const Value* v = nullptr;
  if (callee.kind == py::ExprKind::Name) {
    v = env.lookup(callee.id);
  } else if (callee.kind == py::ExprKind::Attribute && callee.lhs &&
             callee.lhs->kind == py::ExprKind::Name) {
    // `lib.factory(...)` after `import lib`.
    const Value* m = env.lookup(callee.lhs->id);
    if (m && m->kind == K::Module && m->closure) {
      auto it = m->closure->names.find(callee.id);
      if (it != m->closure->names.end()) v = &it->second;
    }
  }
  return v && v->kind == K::Function && v->def ? v : nullptr;
}

void Elaborator::scanExprForCall(const py::Expr& e, Env& env, const py::Stmt& factory,
                                 std::optional<FactoryCall>& found,
                                 std::set<const py::Stmt*>& visited, int depth) {
  if (found) return;
  auto sub = [&](const py::Expr* x) {
    if (x && !found) scanExprForCall(*x, env, factory, found, visited, depth);
  };
  // Arguments run before the call itself.
  for (const auto& x : e.elts) sub(x.get());
  for (const auto& k : e.keywords) sub(k.value.get());
  for (const auto& x : e.keys) sub(x.get());
  for (const auto& x : e.values) sub(x.get());
  if (e.kind == py::ExprKind::Lambda || e.kind == py::ExprKind::Comprehension) return;
  sub(e.lhs.get());
  sub(e.rhs.get());
  sub(e.step.get());
  if (found || e.kind != py::ExprKind::Call) return;
  // `factory.get_tir(args)` (a @tilelang.jit factory's prim_func) is a call
  // of the factory with those arguments; `lib.factory(args)` after `import lib`.
  const py::Expr* calleeExpr = e.lhs.get();
  bool getTir =
      calleeExpr->kind == py::ExprKind::Attribute && calleeExpr->id == "get_tir" && calleeExpr->lhs;
  if (getTir) calleeExpr = calleeExpr->lhs.get();
  const Value* callee = calleeFunction(*calleeExpr, env);
  if (!callee) return;
  const Value fn = *callee;
  if (getTir && fn.def != &factory) return;
  if (fn.def == &factory) {
    auto values = constantArguments(factory, e, env);
    if (!values) return;
    // Python would fail the call if a parameter without a default got no value.
    for (const auto& p : factory.params) {
      if (p.varArgs || p.varKwargs || p.defaultValue) continue;
      bool given = false;
      for (const auto& [name, v] : *values) given |= name == p.name;
      for (const auto& x : options_.defines) given |= x.first == p.name;
      if (!given) return;
    }
    found.emplace();
    found->loc = e.loc;
    found->values = std::move(*values);
    found->expr = &e;
    found->followingKernel = true;  // to its kernel call, by scanForCall
    return;
  }
  // A function the code calls (`main()`, or one imported from a module next to
  // the file): its body runs now.
  const py::Stmt* def = fn.def;
  if (depth >= 4 || visited.count(def) || isPrimFunc(*def) || isMacro(*def)) return;
  std::shared_ptr<Env> home = fn.closure ? fn.closure : moduleEnv_;
  auto local = std::make_shared<Env>();
  local->parent = home;
  size_t ai = 0;
  for (const auto& p : def->params) {
    if (p.varArgs || p.varKwargs) continue;
    Value v = Value::undefined("parameter has no value", p.loc);
    try {
      if (ai < e.elts.size() && e.elts[ai]->kind != py::ExprKind::Starred && !p.keywordOnly)
        v = eval(*e.elts[ai++], env);
      else if (const py::Keyword* k = keyword(e, p.name))
        v = eval(*k->value, env);
      else if (p.defaultValue)
        v = eval(*p.defaultValue, *home);
    } catch (const EvalError& err) {
      v = Value::undefined(err.message, err.loc);
    }
    local->bind(p.name, v);
  }
  visited.insert(def);
  scanForCall(def->body, *local, factory, found, visited, depth + 1, false);
  visited.erase(def);
  // The kernel object does not leave the function that made it (a returned
  // kernel is not followed into the caller).
  if (found) found->followingKernel = false;
}

void Elaborator::scanForCall(const py::StmtList& body, Env& env, const py::Stmt& factory,
                             std::optional<FactoryCall>& found, std::set<const py::Stmt*>& visited,
                             int depth, bool moduleLevel) {
  auto scanExpr = [&](const py::Expr* e) {
    if (e && !found) scanExprForCall(*e, env, factory, found, visited, depth);
  };
  for (size_t index = 0; index < body.size(); ++index) {
    if (found || !scanBudget_) return;
    --scanBudget_;
    const py::Stmt& s = *body[index];
    switch (s.kind) {
      case py::StmtKind::Import:
        if (!moduleLevel) bindImport(s, env);
        break;
      case py::StmtKind::FunctionDef:
        if (!moduleLevel) {
          std::shared_ptr<Env> alias(std::shared_ptr<Env>{}, &env);
          bindFunction(s, alias);
        }
        break;
      case py::StmtKind::Assign:
      case py::StmtKind::AnnAssign:
      case py::StmtKind::AugAssign: {
        if (!s.value) break;
        scanExpr(s.value.get());
        if (found) break;
        if (moduleLevel && s.kind != py::StmtKind::AugAssign && !torchTensor(*s.value, env))
          break;  // already bound
        Value v;
        const py::Expr& rhs = *s.value;
        if (rhs.kind == py::ExprKind::Call && rhs.lhs->kind == py::ExprKind::Attribute &&
            rhs.lhs->id == "parse_args") {
          // `args = parser.parse_args()`: a namespace of the add_argument defaults.
          v = Value::opaque("argparse.Namespace");
          for (const auto& [name, d] : argparseDefaults_) v.items.push_back({Value::str(name), d});
        } else {
          v = scanAssignedValue(s, env);
        }
        bindAssignTargets(s, v, env);
        break;
      }
      case py::StmtKind::Expr: {
        if (!s.value) break;
        const py::Expr& x = *s.value;
        if (x.kind == py::ExprKind::Call && x.lhs->kind == py::ExprKind::Attribute &&
            x.lhs->id == "add_argument") {
          std::string dest;
          for (const auto& a : x.elts)
            if (a->kind == py::ExprKind::Str && a->strValue.rfind("--", 0) == 0 && dest.empty())
              dest = a->strValue.substr(2);
          for (auto& c : dest)
            if (c == '-') c = '_';
          if (const py::Keyword* k = keyword(x, "dest"); k && k->value->kind == py::ExprKind::Str)
            dest = k->value->strValue;
          Value v = Value::none();
          if (const py::Keyword* k = keyword(x, "default")) {
            try {
              v = eval(*k->value, env);
            } catch (const EvalError& e) {
              v = Value::undefined(e.message, e.loc);
            }
          }
          if (!dest.empty()) argparseDefaults_[dest] = v;
        }
        scanExpr(s.value.get());
        break;
      }
      case py::StmtKind::If: {
        scanExpr(s.iter.get());
        bool isMain = s.iter && s.iter->kind == py::ExprKind::Compare && s.iter->lhs &&
                      s.iter->lhs->kind == py::ExprKind::Name && s.iter->lhs->id == "__name__";
        if (isMain) {
          scanForCall(s.body, env, factory, found, visited, depth, false);
          break;
        }
        std::optional<bool> cond;
        try {
          Value c = eval(*s.iter, env);
          if (c.isConstant()) cond = truthy(c, s.iter->loc);
        } catch (const EvalError&) {
        }
        if (!cond || *cond) scanForCall(s.body, env, factory, found, visited, depth, false);
        if (!cond || !*cond) scanForCall(s.orelse, env, factory, found, visited, depth, false);
        break;
      }
      case py::StmtKind::For: {
        scanExpr(s.iter.get());
        // The iterations in order, up to the first one that reaches the call
        // (`for f, n in [(add, 8), (mul, 4)]` finds mul's call in the second).
        std::vector<Value> items{Value::undefined("loop variable", s.loc)};
        try {
          Value it = eval(*s.iter, env);
          if (it.isSequence() && !it.elts.empty()) items = it.elts;
        } catch (const EvalError&) {
        }
        for (size_t i = 0; i < items.size() && i < kMaxParamSets && !found; ++i) {
          for (const auto& t : s.targets) {
            try {
              assignTargets(*t, items[i], env, s.loc);
            } catch (const EvalError& e) {
              assignTargets(*t, Value::undefined(e.message, e.loc), env, s.loc);
            }
          }
          scanForCall(s.body, env, factory, found, visited, depth, false);
        }
        break;
      }
      case py::StmtKind::While:
      case py::StmtKind::With:
        for (const auto& w : s.withItems) scanExpr(w.context.get());
        scanForCall(s.body, env, factory, found, visited, depth, false);
        break;
      case py::StmtKind::Return:
        scanExpr(s.value.get());
        if (!found) return;
        break;
      case py::StmtKind::Assert:
        scanExpr(s.value.get());  // `assert run_case(n, dtype)` in a test
        break;
      case py::StmtKind::Unparsed:
        if (s.isTry) scanForCall(s.body, env, factory, found, visited, depth, moduleLevel);
        break;
      default:
        break;
    }
    if (found) {
      // The statement made the factory call (or a block in it did and followed
      // it to the block's end): follow its result from here.
      if (found->followingKernel) {
        bool block = s.kind == py::StmtKind::If || s.kind == py::StmtKind::For ||
                     s.kind == py::StmtKind::While || s.kind == py::StmtKind::With ||
                     (s.kind == py::StmtKind::Unparsed && s.isTry);
        followKernelObject(body, block ? index + 1 : index, env, *found, !block);
      }
      return;
    }
  }
}

bool Elaborator::isPrimFunc(const py::Stmt& def) {
  for (const auto& d : def.decorators) {
    std::string n = dottedName(*d);
    if (n.size() >= 9 && n.compare(n.size() - 9, 9, "prim_func") == 0) return true;
  }
  return false;
}

bool Elaborator::isMacro(const py::Stmt& def) {
  for (const auto& d : def.decorators) {
    std::string n = dottedName(*d);
    if (n.size() >= 5 && n.compare(n.size() - 5, 5, "macro") == 0) return true;
  }
  return false;
}

// Does this body (a factory's) define a prim_func, directly or under an `if`?
bool Elaborator::defines(const py::StmtList& body) {
  for (const auto& s : body) {
    if (s->kind == py::StmtKind::FunctionDef && isPrimFunc(*s)) return true;
    if (s->kind == py::StmtKind::If && (defines(s->body) || defines(s->orelse))) return true;
    if (s->kind == py::StmtKind::With && defines(s->body)) return true;
  }
  return false;
}

namespace {

// Modules that are libraries, not a kernel author's sibling files: importing
// them binds an opaque value, as before imports were followed.
bool isLibraryModule(const std::string& module) {
  static const std::set<std::string> kLibraries = {
      // The Python standard library modules kernel and test files use.
      "__future__", "abc", "argparse", "array", "ast", "asyncio", "atexit", "base64", "bisect",
      "builtins", "cmath", "codecs", "collections", "concurrent", "contextlib", "copy", "csv",
      "ctypes", "dataclasses", "datetime", "decimal", "difflib", "dis", "enum", "errno", "fnmatch",
      "fractions", "functools", "gc", "getopt", "glob", "gzip", "hashlib", "heapq", "importlib",
      "inspect", "io", "itertools", "json", "keyword", "logging", "math", "multiprocessing",
      "numbers", "operator", "optparse", "os", "pathlib", "pickle", "platform", "pprint", "queue",
      "random", "re", "shutil", "signal", "socket", "statistics", "string", "struct", "subprocess",
      "sys", "sysconfig", "tempfile", "textwrap", "threading", "time", "timeit", "traceback",
      "types", "typing", "typing_extensions", "unittest", "uuid", "warnings", "weakref", "zipfile",
      // Packages kernel and test files import.
      "einops", "ml_dtypes", "numpy", "pandas", "pytest", "scipy", "tilelang", "torch", "torch_npu",
      "tqdm", "triton", "tvm"};
  return kLibraries.count(module.substr(0, module.find('.'))) > 0;
}

bool isPlainModuleName(const std::string& module) {
  if (module.empty() || module.find('.') != std::string::npos) return false;
  for (char c : module)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return !std::isdigit(static_cast<unsigned char>(module[0]));
}

}  // namespace

ImportedModule* Elaborator::loadModule(const std::string& name, SourceLoc at, std::string& why) {
  if (auto it = imports_.find(name); it != imports_.end()) return it->second.get();
  namespace fs = std::filesystem;
  fs::path mainPath(file_->path());
  fs::path dir = options_.moduleDir.empty() ? mainPath.parent_path() : fs::path(options_.moduleDir);
  fs::path onDisk = (dir.empty() ? fs::path(".") : dir) / (name + ".py");
  std::error_code ec;
  if (!fs::is_regular_file(onDisk, ec)) {
    why = fmt::format("no file {}.py next to {}", name, mainPath.filename().string());
    return nullptr;
  }
  std::ifstream in(onDisk, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    why = fmt::format("cannot read {}", onDisk.string());
    return nullptr;
  }
  auto mod = std::make_unique<ImportedModule>();
  mod->name = name;
  // Shown like the compiled file's path: `dir/test.py` imports `dir/lib.py`.
  mod->file =
      std::make_shared<SourceFile>((mainPath.parent_path() / (name + ".py")).string(), text.str());
  diags_.adoptFile(mod->file);
  ImportedModule* raw = mod.get();
  imports_[name] = std::move(mod);
  importOrder_.push_back(raw);
  size_t errorsBefore = diags_.numErrors();
  raw->ast = py::parseModule(*raw->file, diags_, raw->file.get());
  raw->env = newModuleEnv(name);
  if (diags_.numErrors() != errorsBefore) {
    // A lexical error in the module: say which import read it.
    Diagnostic& n = diags_.warning(at, fmt::format("in module '{}' imported here", name));
    n.severity = Severity::Note;
  }
  // Its top level runs once, as Python's import does: definitions and constants,
  // never its `if __name__ == "__main__":` block or its functions' bodies.
  const py::Module* savedModule = module_;
  execDefinitions(raw->ast.body, *raw->env, /*isFactory=*/false);
  module_ = savedModule;
  raw->loading = false;
  return raw;
}

void Elaborator::bindImport(const py::Stmt& s, Env& env) {
  for (const auto& n : s.importNames) {
    std::string module = n.module;
    std::string bound = n.alias;
    if (s.fromImport) {
      size_t dot = module.rfind('.');
      std::string from = dot == std::string::npos ? "" : module.substr(0, dot);
      std::string name = module.substr(dot == std::string::npos ? 0 : dot + 1);
      if (bound.empty()) bound = name;
      bool relative = from.empty() || from[0] == '.';
      if (relative) {
        std::string plain = from;
        while (!plain.empty() && plain[0] == '.') plain.erase(0, 1);
        std::string msg = fmt::format(
            "package-relative imports ('from {} import {}') are not supported yet; import the "
            "module by its plain name from the same folder ('from {} import {}')",
            from.empty() ? "." : from, name, plain.empty() ? name : plain, name);
        if (name != "*") {
          unreadableImports_.push_back({s.loc, {bound}, msg});
          env.bind(bound, Value::undefined(msg, s.loc));
        }
        continue;
      }
      if (isPlainModuleName(from) && !isDialectModule(from) && from != "tilelang") {
        std::string why;
        ImportedModule* mod = loadModule(from, s.loc, why);
        if (mod) {
          if (name == "*") {
            // `from lib import *`: its public names (Python's rule without __all__).
            for (const auto& [k, v] : mod->env->names) {
              bool builtin = v.kind == K::DialectFn && v.s.rfind("builtins.", 0) == 0;
              if (!k.empty() && k[0] != '_' && !builtin) env.names[k] = v;
            }
            continue;
          }
          auto it = mod->env->names.find(name);
          if (it != mod->env->names.end()) {
            env.bind(bound, it->second);
          } else {
            env.bind(
                bound,
                Value::undefined(
                    mod->loading ? fmt::format("cannot import name '{}' from partially initialized "
                                               "module '{}' (an import cycle)",
                                               name, from)
                                 : fmt::format("cannot import name '{}': {}.py defines no such "
                                               "top-level name",
                                               name, from),
                    s.loc));
          }
          continue;
        }
        if (!isLibraryModule(from) && name != "*") {
          std::string msg = fmt::format(
              "cannot import '{}' from '{}': {}; tilesched reads kernel factories from modules in "
              "the same folder as the compiled file",
              name, from, why);
          unreadableImports_.push_back({s.loc, {bound}, msg});
          env.bind(bound, Value::undefined(
                              fmt::format("{} (the import at line {})", msg, s.loc.line), s.loc));
          continue;
        }
      } else if (!isDialectModule(from) && !isLibraryModule(from) && name != "*") {
        // `from pkg.sub import f`: a module in another folder.
        unreadableImports_.push_back(
            {s.loc,
             {bound},
             fmt::format("importing from another folder ('from {} import {}') is not supported "
                         "yet; tilesched reads modules in the same folder as the compiled file",
                         from, name)});
      }
      if (isDialectModule(module))
        env.bind(bound, Value::module("T"));
      else if (isDialectModule(from))
        // `from tilelang.language import simd as S`: S.vadd is T.simd.vadd.
        env.bind(bound, Value::dialect(name));
      else if (module == "tilelang")
        env.bind(bound, Value::module("tilelang"));
      else
        env.bind(bound, Value::opaque(module));
      continue;
    }
    if (isPlainModuleName(module) && !isLibraryModule(module)) {
      // `import lib` / `import lib as l`: `lib.f(...)` reads lib.py's names.
      std::string why;
      if (ImportedModule* mod = loadModule(module, s.loc, why)) {
        Value v = Value::module(module);
        v.closure = std::shared_ptr<Env>(std::shared_ptr<Env>{}, mod->env.get());
        env.bind(bound.empty() ? module : bound, v);
        continue;
      }
      unreadableImports_.push_back(
          {s.loc,
           {bound.empty() ? module : bound},
           fmt::format("cannot import '{}': {}; tilesched reads kernel factories from modules in "
                       "the same folder as the compiled file",
                       module, why)});
    }
    if (bound.empty()) {
      size_t dot = module.find('.');
      bound = module.substr(0, dot);
      // `import tilelang.language` binds `tilelang`.
      env.bind(bound, bound == "tilelang" ? Value::module("tilelang") : Value::opaque(bound));
      continue;
    }
    size_t lastDot = module.rfind('.');
    if (isDialectModule(module))
      env.bind(bound, Value::module("T"));
    else if (lastDot != std::string::npos && isDialectModule(module.substr(0, lastDot)))
      // `import tilelang.language.simd as S`: S.vadd is T.simd.vadd.
      env.bind(bound, Value::dialect(module.substr(lastDot + 1)));
    else if (module == "tilelang")
      env.bind(bound, Value::module("tilelang"));
    else
      env.bind(bound, Value::opaque(module));
  }
}

void Elaborator::bindFunction(const py::Stmt& s, const std::shared_ptr<Env>& env) {
  Value f;
  f.kind = K::Function;
  f.def = &s;
  f.closure = env;
  f.s = s.name;
  env->bind(s.name, f);
}

// Runs module or factory code: imports, constant assignments, defs, constant
// `if`s, asserts and raises. What it cannot evaluate binds the target name to
// Undefined (an error only if a kernel uses it) and is otherwise skipped.
void Elaborator::execDefinitions(const py::StmtList& body, Env& env, bool isFactory) {
  std::shared_ptr<Env> self;  // closures need a shared_ptr to this env
  // Asserts after a prim_func is defined check what the compiled kernel looks
  // like (upstream tests walk its IR or source), which tilesched does not model.
  bool kernelDefined = false;
  for (const auto& sp : body) {
    const py::Stmt& s = *sp;
    if (s.kind == py::StmtKind::FunctionDef && isPrimFunc(s)) kernelDefined = true;
    switch (s.kind) {
      case py::StmtKind::With:
        // `with patch.object(...)` / `with pytest.raises(...)` around a
        // kernel's definition: the body defines it; the context manager is
        // host code and not run.
        if (isFactory) execDefinitions(s.body, env, isFactory);
        kernelDefined |= defines(s.body);
        break;
      case py::StmtKind::Import:
        bindImport(s, env);
        break;
      case py::StmtKind::FunctionDef: {
        // Closures capture `env` by reference through a non-owning alias: the
        // module env and the factory envs outlive every use of their functions,
        // and an owning pointer would make a cycle (env → function → env).
        std::shared_ptr<Env> alias(std::shared_ptr<Env>{}, &env);
        bindFunction(s, alias);
        break;
      }
      case py::StmtKind::ClassDef:
        env.bind(s.name, Value::opaque(s.name));
        break;
      case py::StmtKind::Assign:
      case py::StmtKind::AnnAssign:
      case py::StmtKind::AugAssign: {
        if (!s.value) break;
        bindAssignTargets(s, evalAssignedValue(s, env), env);
        break;
      }
      case py::StmtKind::If: {
        if (!isFactory && s.iter && s.iter->kind == py::ExprKind::Compare && s.iter->lhs &&
            s.iter->lhs->kind == py::ExprKind::Name && s.iter->lhs->id == "__name__")
          break;  // the `if __name__ == "__main__":` test block
        bool cond;
        try {
          cond = truthy(eval(*s.iter, env), s.iter->loc);
        } catch (const EvalError&) {
          break;  // not a constant condition: skip both branches
        }
        execDefinitions(cond ? s.body : s.orelse, env, isFactory);
        break;
      }
      case py::StmtKind::Assert: {
        if (!isFactory || kernelDefined) break;
        Value cond;
        try {
          cond = eval(*s.value, env);
        } catch (const EvalError&) {
          break;
        }
        if (!cond.isConstant() || truthy(cond, s.loc)) break;
        std::string msg = "assertion failed";
        if (s.annotation) {
          try {
            msg += ": " + pyStr(eval(*s.annotation, env));
          } catch (const EvalError&) {
          }
        }
        fail(s.loc, msg);
      }
      case py::StmtKind::Raise:
        if (!isFactory) break;
        fail(s.loc, raiseMessage(s, env));
      case py::StmtKind::Return:
        if (isFactory) throw ReturnSignal{};
        break;
      case py::StmtKind::Unparsed: {
        if (!s.isTry) break;
        // `try: from .m import f` / `except ImportError: from m import f`: the
        // handler runs when the body's imports cannot be read.
        size_t unreadable = unreadableImports_.size();
        execDefinitions(s.body, env, isFactory);
        if (unreadableImports_.size() == unreadable) {
          execDefinitions(s.tryElse, env, isFactory);
        } else {
          unreadableImports_.resize(unreadable);
          execDefinitions(s.orelse, env, isFactory);
        }
        execDefinitions(s.tryFinally, env, isFactory);
        break;
      }
      default:
        break;
    }
  }
}

// `raise ValueError(f"...")` → "ValueError: ..." (the message evaluated when it can be).
std::string Elaborator::raiseMessage(const py::Stmt& s, Env& env) {
  if (!s.value) return "exception re-raised";
  const py::Expr& ex = *s.value;
  std::string type = dottedName(ex);
  std::string msg = type.empty() ? "exception raised" : type;
  if (ex.kind != py::ExprKind::Call || ex.elts.empty()) return msg;
  try {
    std::string text = pyStr(eval(*ex.elts[0], env));
    return text.empty() ? msg : msg + ": " + text;
  } catch (const EvalError& e) {
    return msg + " (its message could not be evaluated: " + e.message + ")";
  }
}

Value Elaborator::evalAssignedValue(const py::Stmt& s, Env& env) {
  try {
    if (s.kind == py::StmtKind::AugAssign) {
      Value old = eval(*s.targets[0], env);
      return binaryOp(s.op, old, eval(*s.value, env), s.loc);
    }
    return eval(*s.value, env);
  } catch (const EvalError& e) {
    // An empty message is a failed binding read (reported where it failed):
    // the new name fails silently too.
    return e.message.empty() ? Value::undefined(kFailedBinding, e.loc)
                             : Value::undefined(e.message, e.loc);
  }
}

void Elaborator::bindAssignTargets(const py::Stmt& s, const Value& v, Env& env) {
  for (const auto& t : s.targets) {
    try {
      assignTargets(*t, v, env, s.loc);
    } catch (const EvalError& e) {
      // `a, b = 1, 2, 3`: the names are bound, to the reason they have no value.
      assignTargets(*t, Value::undefined(e.message, e.loc), env, s.loc);
    }
  }
}

void Elaborator::markFailedNames(const py::Expr& target, Env& env) {
  if (target.kind == py::ExprKind::Name) {
    const Value* old = env.lookup(target.id);
    if (!old || (old->scopeNote && old->scopeNote->ended))
      env.bind(target.id, Value::undefined(kFailedBinding, target.loc));
  }
  if (target.kind == py::ExprKind::Tuple || target.kind == py::ExprKind::List)
    for (const auto& t : target.elts) markFailedNames(*t, env);
}

// Reports a statement's error, then binds the new names it (or a body inside
// it: an `if` whose condition failed, a loop, a `with`) would have bound to
// the "failed" marker: their uses fail silently instead of adding "name 'x' is
// not defined". Names bound before keep their value, as after a failed Python
// statement.
void Elaborator::reportFailedStatement(const EvalError& e, const py::Stmt& s, Env& env) {
  error(e.loc, e.message);
  std::function<void(const py::Stmt&)> mark = [&](const py::Stmt& st) {
    switch (st.kind) {
      case py::StmtKind::Assign:
      case py::StmtKind::AnnAssign:
      case py::StmtKind::Unparsed:  // the names the parser saw it bind
        for (const auto& t : st.targets) markFailedNames(*t, env);
        break;
      case py::StmtKind::For:
        for (const auto& t : st.targets) markFailedNames(*t, env);
        break;
      case py::StmtKind::With:
        for (const auto& item : st.withItems)
          if (item.target) markFailedNames(*item.target, env);
        break;
      default:
        break;
    }
    for (const auto& b : st.body) mark(*b);
    for (const auto& b : st.orelse) mark(*b);
  };
  mark(s);
}

void Elaborator::assignTargets(const py::Expr& target, const Value& v, Env& env, SourceLoc loc) {
  if (target.kind == py::ExprKind::Name) {
    env.bind(target.id, v);
    return;
  }
  if (target.kind == py::ExprKind::Tuple || target.kind == py::ExprKind::List) {
    if (v.kind == K::Undefined) {
      for (const auto& t : target.elts) assignTargets(*t, v, env, loc);
      return;
    }
    if (!v.isSequence())
      fail(loc, fmt::format("cannot unpack {} into {} names", describe(v), target.elts.size()));
    if (v.elts.size() != target.elts.size())
      fail(loc,
           fmt::format("cannot unpack {} values into {} names", v.elts.size(), target.elts.size()));
    for (size_t i = 0; i < target.elts.size(); ++i)
      assignTargets(*target.elts[i], v.elts[i], env, loc);
    return;
  }
  // Attribute/subscript targets in factory code (e.g. configs) are not modelled.
}

// ------------------------------------------------------------ expressions

std::vector<Value> Elaborator::positional(const py::Expr& call, Env& env) {
  std::vector<Value> out;
  for (const auto& a : call.elts) {
    if (a->kind == py::ExprKind::Starred) {
      Value v = eval(*a->lhs, env);
      if (!v.isSequence()) fail(a->loc, "only a tuple or list can be unpacked with '*'");
      out.insert(out.end(), v.elts.begin(), v.elts.end());
      continue;
    }
    out.push_back(eval(*a, env));
  }
  return out;
}

const py::Keyword* Elaborator::keyword(const py::Expr& call, const std::string& name) {
  for (const auto& k : call.keywords)
    if (k.name == name) return &k;
  return nullptr;
}

void Elaborator::checkKeywords(const py::Expr& call, const std::string& fn,
                               std::initializer_list<const char*> allowed) {
  for (const auto& k : call.keywords) {
    bool ok = false;
    for (const char* a : allowed) ok |= k.name == a;
    if (ok) continue;
    std::string list;
    for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
    if (k.name.empty()) fail(k.loc, fmt::format("'**' arguments are not supported in {}", fn));
    fail(k.loc, fmt::format("unknown keyword argument '{}' to {}; {}", k.name, fn,
                            list.empty() ? "it takes no keyword arguments" : "accepted: " + list));
  }
}

std::string Elaborator::kwargText(const Value& v) {
  // Recorded keyword arguments print as Python literals so printed IR parses back.
  if (v.isConstant() || v.kind == K::DType)
    return v.kind == K::DType ? "\"" + v.s + "\"" : pyRepr(v);
  return pyRepr(Value::str(describe(v)));
}

SourceLoc Elaborator::argLoc(const py::Expr& call, size_t i) {
  for (size_t j = 0; j <= i && j < call.elts.size(); ++j)
    if (call.elts[j]->kind == py::ExprKind::Starred) return call.loc;
  return i < call.elts.size() ? call.elts[i]->loc : call.loc;
}

std::string Elaborator::describe(const Value& v) {
  switch (v.kind) {
    case K::None:
    case K::Bool:
    case K::Int:
    case K::Float:
    case K::Str:
      return pyRepr(v);
    case K::DType:
      return "T." + v.s;
    case K::Tuple:
    case K::List:
      return v.allConstant() ? pyRepr(v) : "a " + typeName(v);
    case K::Buffer:
      return fmt::format("buffer '{}'", v.buffer->name);
    case K::Access:
      return fmt::format("an element of '{}'", v.buffer->name);
    case K::Expr: {
      std::vector<std::string> dyn;
      dynamicNames(v.expr, dyn);
      if (dyn.empty()) return "a run-time value";
      return fmt::format(
          "a run-time value of the T.dynamic size '{}'; pass -D {}=VALUE to make it "
          "a constant",
          dyn[0], dyn[0]);
    }
    case K::Opaque:
      if (isDeferredDynamic(v))
        return fmt::format("the T.dynamic size '{}'; pass -D {}=VALUE to make it a constant",
                           v.elts[0].s, v.elts[0].s);
      return fmt::format("'{}'", v.s);
    case K::Function:
      return fmt::format("function '{}'", v.s);
    case K::DialectFn:
      return v.s.rfind("builtins.", 0) == 0 ? fmt::format("the builtin '{}'", v.s.substr(9))
                                            : "T." + v.s;
    default:
      return "a " + typeName(v);
  }
}

int64_t Elaborator::toConstInt(const Value& v, SourceLoc loc, const std::string& what) {
  if (v.kind == K::Int) return v.i;
  if (v.kind == K::Bool) return v.b;
  if (v.kind == K::Expr)
    if (auto c = asConstInt(v.expr)) return *c;
  if (v.kind == K::Undefined)
    fail(loc, fmt::format("{} could not be evaluated at compile time: {}", what, v.s));
  if (v.kind == K::Opaque && !isDeferredDynamic(v))
    fail(loc, fmt::format("{} must be a compile-time integer, got the host value {}, which "
                          "tilesched cannot compute (it runs no host code such as device "
                          "queries); use a constant, or a factory parameter given with -D",
                          what, describe(v)));
  fail(loc, fmt::format("{} must be a compile-time integer, got {}", what,
                        v.kind == K::Expr || isDeferredDynamic(v) ? describe(v) : typeName(v)));
}

DType Elaborator::toDType(const Value& v, SourceLoc loc) {
  if (v.kind == K::DType || v.kind == K::Str) {
    if (auto t = parseDType(v.s)) return *t;
    fail(loc, fmt::format("unknown dtype '{}'; expected one of {}", v.s, dtypeNameList()));
  }
  if (v.kind == K::Undefined) fail(loc, "dtype could not be evaluated at compile time: " + v.s);
  fail(loc, fmt::format("expected a dtype such as \"float16\" or T.float16, got {}", describe(v)));
}

std::vector<int64_t> Elaborator::toConstShape(const Value& v, SourceLoc loc,
                                              const std::string& what) {
  std::vector<Value> dims = v.isSequence() ? v.elts : std::vector<Value>{v};
  if (dims.empty()) fail(loc, fmt::format("{} needs at least one dimension", what));
  std::vector<int64_t> shape;
  int64_t elements = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const Value& d = dims[i];
    if (d.kind == K::Undefined)
      fail(loc, fmt::format("dimension {} of {} could not be evaluated at compile time: {}", i,
                            what, d.s));
    std::optional<int64_t> c;
    if (d.kind == K::Int) c = d.i;
    if (d.kind == K::Expr) c = asConstInt(d.expr);
    if (!c)
      fail(loc, fmt::format("dimension {} of {} must be a compile-time integer, got {}", i, what,
                            describe(d)));
    if (*c <= 0) fail(loc, fmt::format("dimension {} of {} must be positive, got {}", i, what, *c));
    if (__builtin_mul_overflow(elements, *c, &elements) || elements > kMaxElements)
      fail(loc, fmt::format("{} may hold at most 2^40 elements", what));
    shape.push_back(*c);
  }
  return shape;
}

Expr Elaborator::toExpr(const Value& v, SourceLoc loc, std::optional<DType> hint) {
  switch (v.kind) {
    case K::Int:
      if (hint && isFloat(*hint)) return floatImm(static_cast<double>(v.i), *hint);
      // A constant takes the other operand's int type when it fits there
      // (`bx * 2 ** 40` must not wrap to `bx * 0`).
      if (hint && isInt(*hint) && asConstInt(intImm(v.i, *hint)) == v.i) return intImm(v.i, *hint);
      if (v.i > std::numeric_limits<int32_t>::max() || v.i < std::numeric_limits<int32_t>::min())
        return intImm(v.i, DType::Int64);
      return intImm(v.i);
    case K::Bool:
      return boolImm(v.b);
    case K::Float:
      return floatImm(v.f, hint && isFloat(*hint) ? *hint : DType::Float32);
    case K::Expr:
      return v.expr;
    case K::Access: {
      std::vector<Expr> idx;
      for (const auto& a : v.access) {
        if (a.isSlice)
          fail(a.loc,
               fmt::format("a slice of '{}' is a region, not a scalar value", v.buffer->name));
        idx.push_back(a.start);
      }
      if (idx.size() != v.buffer->shape.size())
        fail(loc, fmt::format("buffer '{}' has rank {} but is indexed with {} indices",
                              v.buffer->name, v.buffer->shape.size(), idx.size()));
      return load(v.buffer, idx);
    }
    case K::Buffer:
      if (v.buffer->storage->scope == MemScope::LocalVar) return load(v.buffer, {intImm(0)});
      fail(loc,
           fmt::format("buffer '{}' is used where a scalar value is expected", v.buffer->name));
    case K::Undefined:
      fail(loc, "value could not be evaluated at compile time: " + v.s);
    default:
      fail(loc, fmt::format("expected a scalar value, got {} '{}'", typeName(v), pyStr(v)));
  }
}

// Run-time operands: a Python number takes the other operand's dtype (TVM's
// rule); two numbers (only reachable when the caller mixes in a run-time
// condition) keep their own.
std::pair<Expr, Expr> Elaborator::unifyOperands(const Value& a, SourceLoc aLoc, const Value& b,
                                                SourceLoc bLoc) {
  Expr x = a.isNumber() ? Expr() : toExpr(a, aLoc);
  Expr y = b.isNumber() ? Expr() : toExpr(b, bLoc);
  if (!x && !y) x = toExpr(a, aLoc);
  if (!x) x = toExpr(a, aLoc, y->dtype);
  if (!y) y = toExpr(b, bLoc, x->dtype);
  return {x, y};
}

Value Elaborator::binaryOp(const std::string& op, const Value& a, const Value& b, SourceLoc loc) {
  if (a.kind == K::Undefined) fail(loc, "value could not be evaluated at compile time: " + a.s);
  if (b.kind == K::Undefined) fail(loc, "value could not be evaluated at compile time: " + b.s);
  for (const Value* x : {&a, &b})
    if (isDeferredDynamic(*x))
      fail(loc,
           fmt::format("factory code cannot compute with the T.dynamic size '{}' (its value is "
                       "known only at run time); pass -D {}=VALUE to make it a constant",
                       x->elts[0].s, x->elts[0].s));
  if (a.isConstant() && b.isConstant()) return constBinary(op, a, b, loc);
  // Run-time arithmetic: constants take the other operand's dtype (TVM's rule).
  auto [x, y] = unifyOperands(a, loc, b, loc);
  static const std::map<std::string, BinOp> kOps = {
      {"+", BinOp::Add}, {"-", BinOp::Sub},       {"*", BinOp::Mul},
      {"/", BinOp::Div}, {"//", BinOp::FloorDiv}, {"%", BinOp::FloorMod}};
  auto it = kOps.find(op);
  if (it == kOps.end())
    fail(loc, fmt::format("operator '{}' is not supported on run-time values", op));
  if (op == "/" && !isFloat(x->dtype) && !isFloat(y->dtype))
    fail(loc, "'/' on integers is true division; use '//' for integer division");
  if ((op == "//" || op == "%") && (isFloat(x->dtype) || isFloat(y->dtype)))
    fail(loc, fmt::format("'{}' needs integer operands; use '/' for floats", op));
  if ((op == "//" || op == "%") && isConstInt(y, 0))
    fail(loc, op == "//" ? "integer division by zero" : "integer modulo by zero");
  rejectFloat8Compute({x, y}, loc, fmt::format("'{}'", op));
  return Value::irExpr(binary(it->second, x, y));
}

// Python slicing of a constant tuple, list or string: `dims[1:]`, `s[::-1]`.
Value Elaborator::sliceConstant(const Value& base, const py::Expr& slice, Env& env) {
  int64_t n = base.kind == K::Str ? base.s.size() : base.elts.size();
  auto bound = [&](const py::Expr* e, const char* what) -> std::optional<int64_t> {
    if (!e) return std::nullopt;
    Value v = eval(*e, env);
    if (v.kind == K::None) return std::nullopt;
    return toConstInt(v, e->loc, what);
  };
  int64_t step = bound(slice.step.get(), "slice step").value_or(1);
  if (step == 0) fail(slice.step->loc, "slice step cannot be zero");
  // CPython's PySlice_AdjustIndices.
  auto adjust = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v;
    if (x < 0) {
      x = x < -n ? -1 : x + n;
      if (x < 0) x = step < 0 ? -1 : 0;
    } else if (x >= n) {
      x = step < 0 ? n - 1 : n;
    }
    return x;
  };
  int64_t start = adjust(bound(slice.lhs.get(), "slice start"), step > 0 ? 0 : n - 1);
  int64_t stop = adjust(bound(slice.rhs.get(), "slice stop"), step > 0 ? n : -1);
  Value out = base;
  out.elts.clear();
  out.s.clear();
  for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
    if (i < 0 || i >= n) break;
    if (base.kind == K::Str)
      out.s += base.s[i];
    else
      out.elts.push_back(base.elts[i]);
    if (__builtin_add_overflow(i, step, &i)) break;
  }
  return out;
}

Value Elaborator::subscript(const Value& base, const py::Expr& index, Env& env, SourceLoc loc) {
  if (base.kind == K::Buffer) {
    Value acc;
    acc.kind = K::Access;
    acc.buffer = base.buffer;
    acc.loc = loc;
    std::vector<const py::Expr*> idx;
    if (index.kind == py::ExprKind::Tuple)
      for (const auto& e : index.elts) idx.push_back(e.get());
    else
      idx.push_back(&index);
    for (const py::Expr* e : idx) {
      AccessIndex ai;
      ai.loc = e->loc;
      if (e->kind == py::ExprKind::Slice) {
        ai.isSlice = true;
        if (e->step) fail(e->step->loc, "slices with a step are not supported");
        if (e->lhs) ai.start = toExpr(eval(*e->lhs, env), e->lhs->loc);
        if (e->rhs) ai.stop = toExpr(eval(*e->rhs, env), e->rhs->loc);
        for (const Expr& x : {ai.start, ai.stop})
          if (x && isFloat(x->dtype)) fail(e->loc, "buffer indices must be integers");
      } else {
        ai.start = toExpr(eval(*e, env), e->loc);
        if (isFloat(ai.start->dtype)) fail(e->loc, "buffer indices must be integers");
      }
      acc.access.push_back(std::move(ai));
    }
    // v[i] of a T.simd.alloc_local array names register i (its lanes are the
    // second dimension).
    bool registerRow = acc.access.size() == 1 && !acc.access[0].isSlice &&
                       simdArrays_.count(base.buffer->storage.get());
    if (acc.access.size() != base.buffer->shape.size() && !registerRow)
      fail(loc, fmt::format("buffer '{}' has rank {} but is indexed with {} {}", base.buffer->name,
                            base.buffer->shape.size(), acc.access.size(),
                            acc.access.size() == 1 ? "index" : "indices"));
    return acc;
  }
  if (base.isSequence() || base.kind == K::Str) {
    int64_t n = base.kind == K::Str ? base.s.size() : base.elts.size();
    if (index.kind == py::ExprKind::Slice) return sliceConstant(base, index, env);
    Value i = eval(index, env);
    int64_t k = toConstInt(i, index.loc, "index");
    if (k < 0) k += n;
    if (k < 0 || k >= n)
      fail(index.loc,
           fmt::format("index {} out of range for a {} of length {}", i.i, typeName(base), n));
    if (base.kind == K::Str) return Value::str(std::string(1, base.s[k]));
    return base.elts[k];
  }
  if (base.kind == K::Dict) {
    Value key = eval(index, env);
    for (const auto& [k, v] : base.items)
      if (valuesEqual(k, key)) return v;
    fail(index.loc, fmt::format("key {} not found", pyRepr(key)));
  }
  if (base.kind == K::DialectFn && (base.s == "Tensor" || base.s == "Buffer")) {
    // `T.Tensor[(M, N), "float16"]`: the subscript spelling of T.Tensor((M, N), "float16").
    Value args = eval(index, env);
    if (index.kind != py::ExprKind::Tuple || args.elts.size() != 2)
      fail(index.loc, fmt::format("T.{}[...] takes a shape and a dtype: T.{}[(M, N), \"float16\"]",
                                  base.s, base.s));
    Value t = Value::opaque("T.Tensor");
    t.elts = args.elts;
    return t;
  }
  if (base.kind == K::DialectFn)
    fail(loc,
         fmt::format("{} cannot be subscripted; of the T functions only T.Tensor[shape, dtype] "
                     "and T.Buffer[shape, dtype] take a subscript",
                     describe(base)));
  if (base.kind == K::Opaque) return Value::opaque(base.s + "[...]");
  if (base.kind == K::Undefined)
    fail(loc, "value could not be evaluated at compile time: " + base.s);
  fail(loc, fmt::format("'{}' object is not subscriptable", typeName(base)));
}

Value Elaborator::eval(const py::Expr& e, Env& env) {
  using EK = py::ExprKind;
  switch (e.kind) {
    case EK::Int:
      return Value::integer(e.intValue);
    case EK::Float:
      if (e.imaginary) fail(e.loc, "complex numbers are not supported");
      return Value::floating(e.floatValue);
    case EK::Str:
      return Value::str(e.strValue);
    case EK::Bool:
      return Value::boolean(e.boolValue);
    case EK::None:
      return Value::none();
    case EK::FStr: {
      std::string out;
      for (const auto& part : e.fstrParts) {
        if (!part.expr) {
          out += part.literal;
          continue;
        }
        Value v = eval(*part.expr, env);
        out += part.conversion == 'r' ? pyRepr(v) : pyFormat(v, part.formatSpec);
      }
      return Value::str(out);
    }
    case EK::Name: {
      const Value* v = env.lookup(e.id);
      if (!v) fail(e.loc, fmt::format("name '{}' is not defined", e.id));
      if (v->scopeNote || !scopes_.empty()) noteNameRead(e, env);
      if (v->kind == K::Undefined && v->s == kFailedBinding)
        throw EvalError{e.loc, ""};  // its statement's error was reported
      if (v->kind == K::Undefined)
        fail(e.loc, fmt::format("'{}' could not be evaluated at compile time: {}", e.id, v->s));
      Value read = *v;
      read.scopeNote.reset();  // the note belongs to the binding, not to copies of its value
      if (kernel_) read = resolveDynamic(read);
      return read;
    }
    case EK::Tuple:
    case EK::List: {
      std::vector<Value> elts;
      for (const auto& x : e.elts) {
        if (x->kind == EK::Starred) {
          Value v = eval(*x->lhs, env);
          if (!v.isSequence()) fail(x->loc, "only a tuple or list can be unpacked with '*'");
          elts.insert(elts.end(), v.elts.begin(), v.elts.end());
        } else {
          elts.push_back(eval(*x, env));
        }
      }
      return e.kind == EK::Tuple ? Value::tuple(std::move(elts)) : Value::list(std::move(elts));
    }
    case EK::Dict: {
      Value d;
      d.kind = K::Dict;
      d.loc = e.loc;
      for (size_t i = 0; i < e.values.size(); ++i) {
        if (!e.keys[i]) fail(e.values[i]->loc, "'**' in a dict is not supported");
        d.items.push_back({eval(*e.keys[i], env), eval(*e.values[i], env)});
      }
      return d;
    }
    case EK::Attribute:
      return attributeOf(eval(*e.lhs, env), e.id, e.loc);
    case EK::Subscript:
      return subscript(eval(*e.lhs, env), *e.rhs, env, e.loc);
    case EK::Call:
      return evalCall(e, env);
    case EK::BinOp:
      return binaryOp(e.id, eval(*e.lhs, env), eval(*e.rhs, env), e.loc);
    case EK::UnaryOp: {
      Value a = eval(*e.lhs, env);
      if (a.isConstant()) return constUnary(e.id, a, e.loc);
      Expr x = toExpr(a, e.lhs->loc);
      if (e.id == "-") rejectFloat8Compute({x}, e.loc, "negation");
      if (e.id == "-") return Value::irExpr(unary(UnOp::Neg, x));
      if (e.id == "+") return Value::irExpr(x);
      if (e.id == "not") return Value::irExpr(unary(UnOp::Not, x));
      fail(e.loc, fmt::format("operator '{}' is not supported on run-time values", e.id));
    }
    case EK::Compare: {
      Value left = eval(*e.lhs, env);
      Value result = Value::boolean(true);
      Expr runtime;
      for (size_t i = 0; i < e.compareOps.size(); ++i) {
        Value right = eval(*e.elts[i], env);
        const std::string& op = e.compareOps[i];
        bool membership = (op == "in" || op == "not in") && right.kind == K::Dict;
        if (left.isConstant() && (right.isConstant() || membership)) {
          if (!constCompare(op, left, right, e.loc)) return Value::boolean(false);
        } else {
          static const std::map<std::string, BinOp> kCmp = {{"<", BinOp::LT},  {"<=", BinOp::LE},
                                                            {">", BinOp::GT},  {">=", BinOp::GE},
                                                            {"==", BinOp::EQ}, {"!=", BinOp::NE}};
          auto it = kCmp.find(op);
          if (it == kCmp.end())
            fail(e.loc, fmt::format("'{}' is not supported on run-time values", op));
          auto [x, y] = unifyOperands(left, e.loc, right, e.loc);
          Expr c = binary(it->second, x, y);
          runtime = runtime ? binary(BinOp::And, runtime, c) : c;
        }
        left = right;
      }
      return runtime ? Value::irExpr(runtime) : result;
    }
    case EK::BoolOp: {
      bool isAnd = e.id == "and";
      Expr runtime;
      Value last;
      for (const auto& x : e.elts) {
        Value v = eval(*x, env);
        if (v.isConstant()) {
          bool t = truthy(v, x->loc);
          if (isAnd && !t && !runtime) return v;
          if (!isAnd && t && !runtime) return v;
          if (isAnd != t) {  // `x and False` / `x or True`: decided
            return runtime ? Value::boolean(t) : v;
          }
          last = v;
          continue;
        }
        Expr c = toExpr(v, x->loc);
        runtime = runtime ? binary(isAnd ? BinOp::And : BinOp::Or, runtime, c) : c;
      }
      return runtime ? Value::irExpr(runtime) : last;
    }
    case EK::IfExp: {
      Value cond = eval(*e.rhs, env);
      if (cond.isConstant())
        return truthy(cond, e.rhs->loc) ? eval(*e.lhs, env) : eval(*e.step, env);
      Value a = eval(*e.lhs, env), b = eval(*e.step, env);
      auto [x, y] = unifyOperands(a, e.lhs->loc, b, e.step->loc);
      return Value::irExpr(select(toExpr(cond, e.rhs->loc), x, y));
    }
    case EK::Slice:
      fail(e.loc, "a slice is only valid inside a subscript");
    case EK::Ellipsis:
      fail(e.loc, "'...' is not supported here");
    case EK::Set:
      fail(e.loc, "set literals are not supported");
    case EK::Starred:
      fail(e.loc, "'*' unpacking is not supported here");
    case EK::Lambda:
      fail(e.loc, "lambda expressions are not supported");
    case EK::Comprehension:
      fail(e.loc, "comprehensions are not supported");
  }
  fail(e.loc, "unsupported expression");
}

// `d.get(k[, default])`, `d.keys()`, `d.values()`, `d.items()` on a dict built in
// factory code (e.g. a table of measured latencies per shape).
Value Elaborator::callDictMethod(const Value& dict, const std::string& method, const py::Expr& call,
                                 Env& env) {
  checkKeywords(call, method, {});
  if (method == "get") {
    if (call.elts.empty() || call.elts.size() > 2)
      fail(call.loc, "get takes a key and an optional default: d.get(key, default)");
    Value key = eval(*call.elts[0], env);
    for (const auto& [k, v] : dict.items)
      if (valuesEqual(k, key)) return v;
    return call.elts.size() == 2 ? eval(*call.elts[1], env) : Value::none();
  }
  if (!call.elts.empty()) fail(call.loc, fmt::format("{}() takes no arguments", method));
  std::vector<Value> out;
  for (const auto& [k, v] : dict.items)
    out.push_back(method == "keys" ? k : method == "values" ? v : Value::tuple({k, v}));
  return Value::list(std::move(out));
}

Value Elaborator::evalCall(const py::Expr& call, Env& env) {
  if (call.lhs->kind == py::ExprKind::Attribute && call.lhs->id == "astype") {
    // `x.astype(dtype)` on a scalar value: T.cast(x, dtype).
    Value x = eval(*call.lhs->lhs, env);
    bool scalar = x.isNumber() || x.kind == K::Expr || x.kind == K::Access ||
                  (x.kind == K::Buffer && x.buffer->storage->scope == MemScope::LocalVar);
    if (scalar) {
      checkKeywords(call, "astype", {});
      if (call.elts.size() != 1)
        fail(call.loc, "astype takes one argument, the dtype: x.astype(\"float32\")");
      DType t = toDType(eval(*call.elts[0], env), argLoc(call, 0));
      return Value::irExpr(cast(t, x.isNumber() ? toExpr(x, call.loc, t) : toExpr(x, call.loc)));
    }
  }
  if (call.lhs->kind == py::ExprKind::Attribute) {
    const std::string& method = call.lhs->id;
    if (method == "get" || method == "keys" || method == "values" || method == "items") {
      Value base = eval(*call.lhs->lhs, env);
      if (base.kind == K::Dict) return callDictMethod(base, method, call, env);
    }
  }
  Value fn = eval(*call.lhs, env);
  switch (fn.kind) {
    case K::DialectFn:
      if (fn.s.rfind("builtins.", 0) == 0) return callBuiltin(fn.s.substr(9), call, env);
      return callDialect(fn.s, call, env);
    case K::DType: {
      // T.float32(x): a typed constant or a cast.
      DType t = *parseDType(fn.s);
      if (call.elts.size() != 1)
        fail(call.loc, fmt::format("T.{}() takes exactly one argument", fn.s));
      Value v = eval(*call.elts[0], env);
      if (v.kind == K::Str) {
        if (v.s == "inf" || v.s == "-inf" || v.s == "nan")
          return Value::irExpr(
              floatImm(v.s == "nan" ? NAN : (v.s == "inf" ? INFINITY : -INFINITY), t));
        fail(call.loc, fmt::format("cannot convert '{}' to {}", v.s, fn.s));
      }
      if (v.isNumber()) {
        if (isFloat(t))
          return Value::irExpr(floatImm(
              v.kind == K::Float ? v.f : static_cast<double>(v.kind == K::Int ? v.i : v.b), t));
        if (v.kind == K::Float) {
          if (!std::isfinite(v.f) || std::fabs(v.f) > 9.2e18)
            fail(call.loc, fmt::format("cannot convert {} to {}", floatRepr(v.f), fn.s));
          return Value::irExpr(intImm(static_cast<int64_t>(v.f), t));
        }
        return Value::irExpr(intImm(v.kind == K::Int ? v.i : v.b, t));
      }
      return Value::irExpr(cast(t, toExpr(v, call.loc)));
    }
    case K::Function:
      return callFunction(fn, call, env);
    case K::Opaque:
      if (auto v = hostHelper(fn.s, call, env)) return *v;
      if (fn.s == "pytest.param") {
        // `pytest.param(a, b, id=..., marks=...)`: one parameter set (its values).
        Value set = Value::tuple(positional(call, env));
        set.s = "pytest.param";
        return set;
      }
      return Value::opaque(fn.s + "(...)");
    case K::Module:
      fail(call.loc, "a module is not callable");
    default:
      fail(call.loc, fmt::format("'{}' object is not callable", typeName(fn)));
  }
}

// `base.id` (also `getattr(base, "id")`).
Value Elaborator::attributeOf(const Value& base, const std::string& id, SourceLoc loc) {
  if (base.kind == K::Module && base.closure) {
    // `lib.name` after `import lib` (a module next to the compiled file).
    auto it = base.closure->names.find(id);
    if (it == base.closure->names.end())
      fail(loc, fmt::format("module '{}' has no attribute '{}'", base.s, id));
    if (it->second.kind == K::Undefined)
      fail(loc, fmt::format("'{}.{}' could not be evaluated at compile time: {}", base.s, id,
                            it->second.s));
    return it->second;
  }
  if (base.kind == K::Module) {
    if (base.s == "tilelang" && id == "language") return Value::module("T");
    if (base.s == "tilelang") return Value::opaque("tilelang." + id);
    // T.float is TileLang's name for float32 (Python float → "float32");
    // T.int stays unknown (TVM gives it no dtype meaning of its own).
    if (auto t = parseDType(id); t && id != "int") return Value::dtype(*t);
    return Value::dialect(id);
  }
  // T.simd.vadd, T.vmi.create_mask, ...: a dotted dialect name, so the
  // message at the call names the construct.
  if (base.kind == K::DialectFn && base.s.rfind("builtins.", 0) != 0)
    return Value::dialect(base.s + "." + id);
  if (base.kind == K::Buffer) {
    if (id == "shape") {
      std::vector<Value> dims;
      for (const auto& d : base.buffer->shape) {
        if (auto c = asConstInt(d))
          dims.push_back(Value::integer(*c));
        else
          dims.push_back(Value::irExpr(d));
      }
      return Value::tuple(std::move(dims));
    }
    if (id == "dtype") return Value::dtype(base.buffer->dtype);
    // X.data stands for X's bytes: `T.Tensor(shape, dtype, X.data)` views them.
    if (id == "data") return base;
    if (id == "astype" && base.buffer->storage->scope != MemScope::LocalVar)
      fail(loc, fmt::format("astype converts a scalar value; to convert buffer '{}' use "
                            "T.copy into a buffer of the new dtype",
                            base.buffer->name));
    fail(loc, fmt::format("buffer has no attribute '{}'; available: shape, dtype, data", id));
  }
  if (base.kind == K::Opaque && base.s == "argparse.Namespace") {
    for (const auto& [key, v] : base.items)
      if (key.s == id) {
        if (v.kind == K::Undefined)
          fail(loc, fmt::format("'{}' could not be evaluated at compile time: {}", id, v.s));
        return v;
      }
    fail(loc, fmt::format("no argparse option '--{}' with a default", id));
  }
  if (base.kind == K::Opaque) return Value::opaque(base.s + "." + id);
  if (base.kind == K::Str &&
      (id == "upper" || id == "lower" || id == "format" || id == "startswith"))
    return Value::opaque("str." + id);
  fail(loc, fmt::format("'{}' object has no attribute '{}'", typeName(base), id));
}

Value Elaborator::callBuiltin(const std::string& name, const py::Expr& call, Env& env) {
  auto args = positional(call, env);
  auto need = [&](size_t n) {
    if (args.size() != n)
      fail(call.loc, fmt::format("{}() takes {} argument{} ({} given)", name, n, n == 1 ? "" : "s",
                                 args.size()));
  };
  if (name == "min" || name == "max") {
    if (args.size() == 1 && args[0].isSequence()) args = args[0].elts;
    if (args.empty()) fail(call.loc, name + "() expects at least one argument");
    Value best = args[0];
    for (size_t i = 1; i < args.size(); ++i) {
      const Value& v = args[i];
      if (best.isConstant() && v.isConstant()) {
        bool less = constCompare("<", v, best, call.loc);
        if (name == "min" ? less : constCompare(">", v, best, call.loc)) best = v;
        continue;
      }
      Expr x = toExpr(best, call.loc), y = toExpr(v, call.loc, x->dtype);
      best = Value::irExpr(binary(name == "min" ? BinOp::Min : BinOp::Max, x, y));
    }
    return best;
  }
  if (name == "abs") {
    need(1);
    if (args[0].isConstant()) {
      if (args[0].kind == K::Float) return Value::floating(std::fabs(args[0].f));
      return constBinary("*", args[0],
                         Value::integer(toConstInt(args[0], call.loc, "abs argument") < 0 ? -1 : 1),
                         call.loc);
    }
    Expr x = toExpr(args[0], call.loc);
    rejectFloat8Compute({x}, call.loc, "abs");
    return Value::irExpr(unary(UnOp::Abs, x));
  }
  if (name == "int" || name == "float" || name == "bool" || name == "str") {
    if (args.empty())
      return name == "str" ? Value::str("")
                           : (name == "float" ? Value::floating(0) : Value::integer(0));
    need(1);
    const Value& v = args[0];
    if (name == "str") return Value::str(pyStr(v));
    if (name == "bool") return Value::boolean(truthy(v, call.loc));
    if (v.kind == K::Str) {
      try {
        size_t pos = 0;
        if (name == "int") {
          int64_t x = std::stoll(v.s, &pos);
          if (pos == v.s.size()) return Value::integer(x);
        } else {
          double x = std::stod(v.s, &pos);
          if (pos == v.s.size()) return Value::floating(x);
        }
      } catch (const std::exception&) {
      }
      fail(call.loc, fmt::format("invalid literal for {}(): {}", name, pyRepr(v)));
    }
    if (!v.isNumber()) {
      if (v.kind == K::Expr || v.kind == K::Access)
        return Value::irExpr(
            cast(name == "int" ? DType::Int32 : DType::Float32, toExpr(v, call.loc)));
      fail(call.loc, fmt::format("{}() argument must be a number, not '{}'", name, typeName(v)));
    }
    if (name == "float")
      return Value::floating(
          v.kind == K::Float ? v.f : static_cast<double>(v.kind == K::Int ? v.i : v.b));
    if (v.kind == K::Float) {
      if (!std::isfinite(v.f) || std::fabs(v.f) > 9.2e18)
        fail(call.loc, "cannot convert float to int");
      return Value::integer(static_cast<int64_t>(v.f));
    }
    return Value::integer(v.kind == K::Int ? v.i : v.b);
  }
  if (name == "getattr") {
    // getattr(obj, "name"[, default]) is obj.name: `getattr(T, f"reduce_{op}")`.
    if (args.size() != 2 && args.size() != 3)
      fail(call.loc,
           fmt::format("getattr takes (object, name[, default]) ({} given)", args.size()));
    if (args[1].kind != K::Str) fail(call.loc, "the name given to getattr must be a string");
    if (args.size() == 2) return attributeOf(args[0], args[1].s, call.loc);
    try {
      return attributeOf(args[0], args[1].s, call.loc);
    } catch (const EvalError&) {
      return args[2];
    }
  }
  if (name == "len") {
    need(1);
    if (args[0].isSequence()) return Value::integer(args[0].elts.size());
    if (args[0].kind == K::Str) return Value::integer(args[0].s.size());
    if (args[0].kind == K::Dict) return Value::integer(args[0].items.size());
    fail(call.loc, fmt::format("object of type '{}' has no len()", typeName(args[0])));
  }
  if (name == "tuple" || name == "list") {
    if (args.empty()) return name == "tuple" ? Value::tuple({}) : Value::list({});
    need(1);
    if (!args[0].isSequence()) fail(call.loc, fmt::format("{}() needs a tuple or list", name));
    return name == "tuple" ? Value::tuple(args[0].elts) : Value::list(args[0].elts);
  }
  if (name == "print") return Value::none();
  if (name == "range") {
    // Compile-time helper loops (`for i in range(n)` in a factory helper).
    if (args.empty() || args.size() > 3)
      fail(call.loc, fmt::format("range expected 1 to 3 arguments, got {}", args.size()));
    std::vector<int64_t> a;
    for (size_t i = 0; i < args.size(); ++i)
      a.push_back(toConstInt(args[i], argLoc(call, i), "range() argument"));
    int64_t start = a.size() == 1 ? 0 : a[0], stop = a.size() == 1 ? a[0] : a[1];
    int64_t step = a.size() == 3 ? a[2] : 1;
    if (step == 0) fail(call.loc, "range() arg 3 must not be zero");
    std::vector<Value> out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (out.size() >= kMaxHelperIterations)
        fail(call.loc, fmt::format("range() longer than {} elements cannot be evaluated at "
                                   "compile time",
                                   kMaxHelperIterations));
      out.push_back(Value::integer(i));
    }
    return Value::list(std::move(out));
  }
  fail(call.loc, fmt::format("{}() cannot be evaluated at compile time", name));
}

// Runs a helper function for its return value (factory helpers such as
// `def get_tiles(n): return n // 64`).
Value Elaborator::callFunction(const Value& fn, const py::Expr& call, Env& env) {
  if (isPrimFunc(*fn.def)) fail(call.loc, "calling a @T.prim_func is not supported");
  if (isMacro(*fn.def)) {
    if (!kernel_ || !currentCtx_)
      fail(call.loc, fmt::format("macro '{}' can only be called inside a kernel", fn.def->name));
    return inlineMacro(fn, call, env, *currentCtx_);
  }
  if (++callDepth_ > kMaxCallDepth) {
    --callDepth_;
    fail(call.loc, "call nesting too deep (recursive function?)");
  }
  struct Guard {
    int& d;
    ~Guard() { --d; }
  } guard{callDepth_};
  auto local = std::make_shared<Env>();
  local->parent = fn.closure;
  auto args = positional(call, env);
  const auto& params = fn.def->params;
  size_t ai = 0;
  for (const auto& p : params) {
    if (p.varArgs || p.varKwargs) continue;
    if (ai < args.size()) {
      local->bind(p.name, args[ai++]);
    } else if (const py::Keyword* k = keyword(call, p.name)) {
      local->bind(p.name, eval(*k->value, env));
    } else if (p.defaultValue) {
      local->bind(p.name, eval(*p.defaultValue, *fn.closure));
    } else {
      fail(call.loc, fmt::format("{}() missing required argument '{}'", fn.def->name, p.name));
    }
  }
  if (ai < args.size())
    fail(call.loc, fmt::format("{}() takes {} positional arguments", fn.def->name, params.size()));
  // Helpers: assignments, constant ifs, `for` over constant sequences and
  // `while` (at most kMaxHelperIterations iterations in all), and a return.
  enum class Flow { Normal, Break, Continue, Return };
  std::optional<Value> result;
  size_t iterations = 0;
  auto tick = [&](SourceLoc loc) {
    if (++iterations > kMaxHelperIterations)
      fail(loc, fmt::format("function '{}' runs more than {} loop iterations at compile time",
                            fn.def->name, kMaxHelperIterations));
  };
  std::function<Flow(const py::StmtList&)> run = [&](const py::StmtList& body) -> Flow {
    for (const auto& s : body) {
      switch (s->kind) {
        case py::StmtKind::Return:
          result = s->value ? eval(*s->value, *local) : Value::none();
          return Flow::Return;
        case py::StmtKind::Assign:
          for (const auto& t : s->targets)
            assignTargets(*t, eval(*s->value, *local), *local, s->loc);
          break;
        case py::StmtKind::AugAssign:
          assignTargets(
              *s->targets[0],
              binaryOp(s->op, eval(*s->targets[0], *local), eval(*s->value, *local), s->loc),
              *local, s->loc);
          break;
        case py::StmtKind::If: {
          Flow f = run(truthy(eval(*s->iter, *local), s->loc) ? s->body : s->orelse);
          if (f != Flow::Normal) return f;
          break;
        }
        case py::StmtKind::For: {
          Value seq = eval(*s->iter, *local);
          if (!seq.isSequence())
            fail(s->iter->loc, fmt::format("function '{}' loops over {}; only a range() or a "
                                           "constant tuple or list can be looped over at compile "
                                           "time",
                                           fn.def->name, describe(seq)));
          bool broke = false;
          for (const auto& x : seq.elts) {
            tick(s->loc);
            assignTargets(*s->targets[0], x, *local, s->loc);
            Flow f = run(s->body);
            if (f == Flow::Return) return f;
            if (f == Flow::Break) {
              broke = true;
              break;
            }
          }
          if (!broke) {
            Flow f = run(s->orelse);
            if (f != Flow::Normal) return f;
          }
          break;
        }
        case py::StmtKind::While: {
          bool broke = false;
          while (truthy(eval(*s->iter, *local), s->iter->loc)) {
            tick(s->loc);
            Flow f = run(s->body);
            if (f == Flow::Return) return f;
            if (f == Flow::Break) {
              broke = true;
              break;
            }
          }
          if (!broke) {
            Flow f = run(s->orelse);
            if (f != Flow::Normal) return f;
          }
          break;
        }
        case py::StmtKind::Break:
          return Flow::Break;
        case py::StmtKind::Continue:
          return Flow::Continue;
        case py::StmtKind::Pass:
        case py::StmtKind::Expr:
        case py::StmtKind::Import:
          break;
        case py::StmtKind::Assert:
          if (!truthy(eval(*s->value, *local), s->loc))
            fail(s->loc,
                 "assertion failed" +
                     (s->annotation ? ": " + pyStr(eval(*s->annotation, *local)) : std::string()));
          break;
        case py::StmtKind::Raise:
          fail(s->loc, raiseMessage(*s, *local));
        default:
          fail(s->loc,
               fmt::format("function '{}' cannot be evaluated at compile time", fn.def->name));
      }
    }
    return Flow::Normal;
  };
  run(fn.def->body);
  return result ? *result : Value::none();
}

std::optional<Value> Elaborator::hostHelper(const std::string& name, const py::Expr& call,
                                            Env& env) {
  std::string n = name;
  for (const char* prefix : {"tilelang.math.", "tilelang.", "math."})
    if (n.rfind(prefix, 0) == 0) {
      n = std::string(name.rfind("math.", 0) == 0 ? "math." : "tilelang.") +
          n.substr(std::string(prefix).size());
      break;
    }
  static const std::set<std::string> kKnown = {"tilelang.next_power_of_2",
                                               "tilelang.cdiv",
                                               "math.ceil",
                                               "math.floor",
                                               "math.log2",
                                               "math.sqrt",
                                               "math.gcd"};
  if (!kKnown.count(n)) return std::nullopt;
  checkKeywords(call, name, {});
  auto args = positional(call, env);
  for (const auto& a : args)
    if (!a.isNumber()) return std::nullopt;  // run-time or unknown: not a host computation
  size_t want = (n == "tilelang.cdiv" || n == "math.gcd") ? 2 : 1;
  if (args.size() != want)
    fail(call.loc, fmt::format("{}() takes {} argument{} ({} given)", name, want,
                               want == 1 ? "" : "s", args.size()));
  auto asDouble = [](const Value& v) {
    return v.kind == K::Float ? v.f : static_cast<double>(v.kind == K::Int ? v.i : v.b);
  };
  auto toInt = [&](double d) {
    if (!std::isfinite(d) || std::fabs(d) > 9.2e18)
      fail(call.loc, fmt::format("{}() result does not fit in a 64-bit integer", name));
    return Value::integer(static_cast<int64_t>(d));
  };
  const Value& x = args[0];
  if (n == "tilelang.next_power_of_2") {
    // 1 << (x - 1).bit_length(), as tilelang.math defines it.
    int64_t v = toConstInt(x, argLoc(call, 0), "next_power_of_2 argument");
    int64_t bits = bitLength(v == INT64_MIN ? v : v - 1);
    if (bits >= 63) fail(call.loc, "next_power_of_2() result does not fit in a 64-bit integer");
    return Value::integer(int64_t(1) << bits);
  }
  if (n == "tilelang.cdiv") {
    // (a + b - 1) // b, as tilelang.math defines it.
    Value sum =
        constBinary("-", constBinary("+", args[0], args[1], call.loc), Value::integer(1), call.loc);
    return constBinary("//", sum, args[1], call.loc);
  }
  if (n == "math.ceil" || n == "math.floor") {
    if (x.kind != K::Float) return Value::integer(x.kind == K::Int ? x.i : x.b);
    return toInt(n == "math.ceil" ? std::ceil(x.f) : std::floor(x.f));
  }
  if (n == "math.log2" || n == "math.sqrt") {
    double d = asDouble(x);
    if (n == "math.log2" ? d <= 0 : d < 0) fail(call.loc, "ValueError: math domain error");
    return Value::floating(n == "math.log2" ? std::log2(d) : std::sqrt(d));
  }
  // math.gcd
  int64_t a = toConstInt(args[0], argLoc(call, 0), "gcd argument");
  int64_t b = toConstInt(args[1], argLoc(call, 1), "gcd argument");
  if (a == INT64_MIN || b == INT64_MIN)
    fail(call.loc, "gcd() result does not fit in a 64-bit integer");
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return Value::integer(a);
}

Value Elaborator::callDialect(const std::string& name, const py::Expr& call, Env& env) {
  auto args = [&] { return positional(call, env); };
  auto arity = [&](const std::vector<Value>& a, size_t n) {
    if (a.size() != n)
      fail(call.loc, fmt::format("T.{}() takes {} argument{} ({} given)", name, n,
                                 n == 1 ? "" : "s", a.size()));
  };
  static const std::map<std::string, UnOp> kUnary = {
      {"exp", UnOp::Exp},     {"log", UnOp::Log},   {"sqrt", UnOp::Sqrt},
      {"rsqrt", UnOp::Rsqrt}, {"tanh", UnOp::Tanh}, {"sigmoid", UnOp::Sigmoid},
      {"abs", UnOp::Abs}};
  if (auto it = kUnary.find(name); it != kUnary.end()) {
    checkKeywords(call, "T." + name, {});
    auto a = args();
    arity(a, 1);
    Expr x = toExpr(a[0], call.loc);
    rejectFloat8Compute({x}, call.loc, "T." + name);
    if (it->second != UnOp::Abs && !isFloat(x->dtype)) x = cast(DType::Float32, x);
    return Value::irExpr(unary(it->second, x));
  }
  if (name == "min" || name == "max") {
    checkKeywords(call, "T." + name, {});
    auto a = args();
    arity(a, 2);
    if (a[0].isConstant() && a[1].isConstant())
      return constCompare(name == "min" ? "<=" : ">=", a[0], a[1], call.loc) ? a[0] : a[1];
    auto [x, y] = unifyOperands(a[0], call.loc, a[1], call.loc);
    rejectFloat8Compute({x, y}, call.loc, "T." + name);
    return Value::irExpr(binary(name == "min" ? BinOp::Min : BinOp::Max, x, y));
  }
  if (name == "clamp") {
    // T.clamp(x, lo, hi) is T.min(T.max(x, lo), hi), as TileLang defines it;
    // a NaN x stays NaN (T.max and T.min keep a NaN first operand).
    checkKeywords(call, "T.clamp", {"min_val", "max_val"});
    auto a = args();
    std::vector<SourceLoc> locs;
    for (size_t i = 0; i < a.size(); ++i) locs.push_back(argLoc(call, i));
    size_t positionalCount = a.size();
    for (const char* kw : {"min_val", "max_val"})
      if (const py::Keyword* k = keyword(call, kw)) {
        if (positionalCount > (std::string(kw) == "min_val" ? 1u : 2u))
          fail(k->loc, fmt::format("T.clamp got two values for {}", kw));
        a.push_back(eval(*k->value, env));
        locs.push_back(k->value->loc);
      }
    if (a.size() != 3)
      fail(call.loc, fmt::format("T.clamp takes (x, min_val, max_val) ({} given)", a.size()));
    auto [x, lo] = unifyOperands(a[0], locs[0], a[1], locs[1]);
    Expr low = binary(BinOp::Max, x, lo);
    auto [y, hi] = unifyOperands(Value::irExpr(low), call.loc, a[2], locs[2]);
    rejectFloat8Compute({x, lo, hi}, call.loc, "T.clamp");
    return Value::irExpr(binary(BinOp::Min, y, hi));
  }
  if (name == "bind") {
    // T.bind(e): evaluate e once, here, and name the result; a plain name
    // bound to a value already takes it at this point (docs/language.md).
    checkKeywords(call, "T.bind", {});
    auto a = args();
    arity(a, 1);
    if (a[0].kind == K::Buffer && a[0].buffer->storage->scope != MemScope::LocalVar)
      fail(argLoc(call, 0), "T.bind takes a scalar value, not a buffer");
    // A T.alloc_var is read now (a snapshot, never an alias of the variable).
    if (a[0].kind == K::Buffer) return Value::irExpr(load(a[0].buffer, {intImm(0)}));
    return a[0];
  }
  if (name == "ceildiv") {
    auto a = args();
    arity(a, 2);
    if (a[0].isConstant() && a[1].isConstant()) {
      int64_t x = toConstInt(a[0], call.loc, "T.ceildiv argument");
      int64_t y = toConstInt(a[1], call.loc, "T.ceildiv argument");
      if (y == 0) fail(call.loc, "integer division by zero in T.ceildiv");
      return Value::integer(-floorDiv(-x, y));
    }
    Value num = binaryOp("+", a[0], binaryOp("-", a[1], Value::integer(1), call.loc), call.loc);
    return binaryOp("//", num, a[1], call.loc);
  }
  if (name == "if_then_else" || name == "Select") {
    auto a = args();
    arity(a, 3);
    if (a[0].isConstant()) return truthy(a[0], call.loc) ? a[1] : a[2];
    auto [x, y] = unifyOperands(a[1], call.loc, a[2], call.loc);
    return Value::irExpr(select(toExpr(a[0], call.loc), x, y));
  }
  if (name == "cast" || name == "Cast") {
    // T.cast(x, dtype); T.Cast(dtype, x) is TVM's spelling with the operands swapped.
    checkKeywords(call, "T." + name, {});
    auto a = args();
    arity(a, 2);
    size_t xi = name == "cast" ? 0 : 1, ti = 1 - xi;
    DType t = toDType(a[ti], argLoc(call, ti));
    if (a[xi].isNumber()) return Value::irExpr(cast(t, toExpr(a[xi], call.loc, t)));
    return Value::irExpr(cast(t, toExpr(a[xi], call.loc)));
  }
  if (name == "infinity") {
    auto a = args();
    arity(a, 1);
    return Value::irExpr(floatImm(INFINITY, toDType(a[0], call.loc)));
  }
  if (name == "max_value" || name == "min_value") {
    // The largest / smallest finite value of a dtype.
    auto a = args();
    arity(a, 1);
    DType t = toDType(a[0], argLoc(call, 0));
    bool largest = name == "max_value";
    if (isFloat(t)) {
      double m = t == DType::Float32    ? 3.4028234663852886e38
                 : t == DType::Float16  ? 65504.0
                 : t == DType::BFloat16 ? 3.3895313892515355e38
                                        : 0.0;
      if (m == 0.0) fail(call.loc, fmt::format("T.{} of {} is not supported", name, dtypeName(t)));
      return Value::irExpr(floatImm(largest ? m : -m, t));
    }
    int bits = dtypeBytes(t) * 8;
    int64_t v = 0;
    if (isSigned(t))
      v = largest ? (bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1)
                  : (bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1)));
    else
      v = largest ? (bits >= 63 ? INT64_MAX : (int64_t(1) << bits) - 1) : 0;
    if (t == DType::Bool) v = largest ? 1 : 0;
    return Value::irExpr(intImm(v, t));
  }
  if (name == "dynamic") {
    auto a = args();
    if (a.empty() || a[0].kind != K::Str)
      fail(call.loc, "T.dynamic() needs the size's name as a string");
    for (const auto& [n, v] : options_.defines) {
      if (n != a[0].s) continue;
      usedDefines_.push_back(n);
      int64_t size = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), size);
      if (ec != std::errc() || end != v.data() + v.size() || size < 1)
        fail(call.loc, fmt::format("-D {}={} is not a positive integer size", n, v));
      return Value::integer(size);
    }
    // The value the tensors of the file's own kernel call give, as if by -D.
    if (auto it = dynamicFromCall_.find(a[0].s); it != dynamicFromCall_.end())
      return Value::integer(it->second);
    if (!kernel_) {
      Value deferred = Value::opaque("T.dynamic");
      deferred.elts.push_back(Value::str(a[0].s));
      deferred.loc = call.loc;
      return deferred;
    }
    return dynamicSize(a[0].s);
  }
  if (name == "Tensor" || name == "Buffer") {
    Value t;
    t.kind = K::Opaque;
    t.s = "T.Tensor";
    auto a = args();
    if (a.size() < 1) fail(call.loc, fmt::format("T.{}() needs a shape and a dtype", name));
    t.elts = a;
    if (const py::Keyword* k = keyword(call, "dtype")) t.elts.push_back(eval(*k->value, env));
    if (const py::Keyword* k = keyword(call, "shape"))
      t.elts.insert(t.elts.begin(), eval(*k->value, env));
    // `T.Tensor(shape, dtype, X.data)` in a kernel: X's bytes in another shape
    // and dtype, as T.view(X, shape, dtype).
    if (kernel_ && t.elts.size() == 3 && t.elts[2].kind == K::Buffer) {
      if (simdNameHint_.empty())
        fail(call.loc, fmt::format("T.{}(shape, dtype, X.data) must be assigned to a name", name));
      return makeView("T.view", t.elts[2].buffer, t.elts[0], t.elts[1], call.loc, call.loc,
                      call.loc, simdNameHint_);
    }
    return t;
  }
  // Before `with T.Kernel` an assignment is evaluated as a value: a view of a
  // parameter there is named by the assignment's target.
  if ((name == "view" || name == "reshape") && kernel_ && !simdNameHint_.empty())
    return viewOf(name, call, env, simdNameHint_);
  if (name.rfind("alloc_", 0) == 0 || name == "view" || name == "reshape")
    fail(call.loc, fmt::format("T.{}() must be assigned to a name: 'buf = T.{}(...)'", name, name));
  if (name.rfind("simd.", 0) == 0) return callSimd(name.substr(5), call, env);
  for (const char* u : kUnsupportedDialect)
    if (name == u || name.rfind(std::string(u) + ".", 0) == 0)
      fail(call.loc, fmt::format("T.{} is not supported yet", name));
  static const std::set<std::string> kLoops = {"serial",   "Serial",     "Pipelined", "Unroll",
                                               "Parallel", "Persistent", "unroll"};
  if (kLoops.count(name))
    fail(call.loc, fmt::format("T.{}(...) can only be the iterable of a 'for' loop", name));
  static const std::set<std::string> kWith = {"Kernel", "SimtVF", "SimdVF"};
  if (kWith.count(name))
    fail(call.loc, fmt::format("T.{}(...) can only be used in a 'with' statement", name));
  static const std::set<std::string> kStatements = {"copy",
                                                    "gemm",
                                                    "fill",
                                                    "clear",
                                                    "reduce_sum",
                                                    "reduce_max",
                                                    "reduce_min",
                                                    "reduce_abssum",
                                                    "reduce_absmax",
                                                    "set_flag",
                                                    "wait_flag",
                                                    "pipe_barrier",
                                                    "barrier_all",
                                                    "ascend_pipe_barrier",
                                                    "ascend_get_buf",
                                                    "ascend_rls_buf",
                                                    "ascend_set_flag",
                                                    "ascend_wait_flag",
                                                    "annotate_buffer_versions",
                                                    "annotate_manual_multi_buffer",
                                                    "annotate_unlimit_memory",
                                                    "set_atomic",
                                                    "set_atomic_none",
                                                    "finalize_reducer",
                                                    "assume_conflict",
                                                    "annotate_layout",
                                                    "set_hf32_mode",
                                                    "print",
                                                    "atomic_add",
                                                    "atomic_max",
                                                    "atomic_min",
                                                    "ascend_set_copy_pad_value"};
  if (name.rfind("atomic_", 0) == 0 && kStatements.count(name) && kernel_ && currentCtx_)
    return Value::irExpr(elabAtomicUpdate(name, call, env, *currentCtx_, /*wantPrev=*/true));
  if (kStatements.count(name))
    fail(call.loc, fmt::format("T.{}(...) is a statement and has no value", name));
  // A typo of a name the dialect has: say which one.
  std::vector<std::string> known(kStatements.begin(), kStatements.end());
  known.insert(known.end(), kLoops.begin(), kLoops.end());
  known.insert(known.end(), kWith.begin(), kWith.end());
  for (const char* n :
       {"alloc_shared",   "alloc_ub",    "alloc_l1",  "alloc_l0a",     "alloc_l0b", "alloc_l0c",
        "alloc_fragment", "alloc_local", "alloc_var", "alloc_reducer", "view",      "reshape",
        "cast",           "exp",         "log",       "sqrt",          "rsqrt",     "tanh",
        "sigmoid",        "abs",         "max",       "min",           "ceildiv",   "if_then_else",
        "Select",         "infinity",    "clamp",     "max_value",     "min_value", "Tensor",
        "Buffer",         "dynamic",     "assume",    "macro",         "prim_func", "float32",
        "float16",        "bfloat16",    "int32",     "int8",          "bool"})
    known.push_back(n);
  std::string suggestion = nearestName(name, known);
  fail(call.loc,
       fmt::format("unknown function T.{}; it is not in the TileLang subset tilesched supports{}",
                   name, suggestion.empty() ? "" : "; did you mean T." + suggestion + "?"));
}

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
        } else if (ann.kind == K::Opaque && ann.s == "T.Tensor") {
          if (ann.elts.size() != 2)
            fail(p.annotation->loc,
                 "T.Tensor needs a shape and a dtype: T.Tensor((M, N), \"float16\")");
          std::vector<Expr> shape;
          const Value& sv = ann.elts[0];
          std::vector<Value> dims = sv.isSequence() ? sv.elts : std::vector<Value>{sv};
          if (dims.empty()) fail(p.annotation->loc, "a tensor shape needs at least one dimension");
          for (const auto& d : dims) {
            Expr e = toExpr(d, p.annotation->loc);
            if (isFloat(e->dtype)) fail(p.annotation->loc, "tensor dimensions must be integers");
            if (auto c = asConstInt(e); c && *c <= 0)
              fail(p.annotation->loc,
                   fmt::format("tensor dimensions must be positive, got {}", *c));
            shape.push_back(e);
          }
          kp.buffer = makeBuffer(p.name, MemScope::Global, toDType(ann.elts[1], p.annotation->loc),
                                 shape, p.loc);
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
    if (call.kind != py::ExprKind::Call)
      fail(call.loc, "T.Kernel must be called: 'with T.Kernel(grid) as bx:'");
    // Only T.Kernel launches a kernel; MixedKernel & co. must not pass as one.
    Value launcher = eval(*call.lhs, env);
    if (launcher.kind != K::DialectFn || launcher.s != "Kernel") {
      std::string name = dottedName(*call.lhs);
      if (launcher.kind == K::DialectFn && launcher.s == "MixedKernel")
        fail(call.lhs->loc,
             "T.MixedKernel (a mixed AIC/AIV kernel with cube and vector parts) "
             "is not supported yet; tilesched compiles 'with T.Kernel(n) as bx:'");
      fail(call.lhs->loc, fmt::format("'with {}(...)' does not launch a kernel; the launch is "
                                      "'with T.Kernel(n) as bx:'",
                                      name.empty() ? std::string("...") : name));
    }
    checkKeywords(call, "T.Kernel", {"threads", "is_npu", "prelude"});
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
      k.kernelKwargs.push_back({kw.name, kwargText(eval(*kw.value, env))});
    if (!item.target) {
      // `with T.Kernel(n):` every block runs the same body; the index exists
      // in the IR (printed as `as bx`) but no name is bound to it.
      k.blockIdx = makeVar("bx", DType::Int32, VarKind::BlockIdx);
    } else {
      if (item.target->kind != py::ExprKind::Name)
        fail(item.target->loc,
             "'as (cid, vid)' binds a vector sub-core index, which needs mixed AIC/AIV kernels "
             "(not supported yet); use 'as bx'");
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
}

void Elaborator::elabBlock(const py::StmtList& body, Env& env, BlockCtx& ctx) {
  for (const auto& s : body) {
    if (diags_.numErrors() >= DiagnosticEngine::kMaxErrors) return;
    try {
      elabStmt(*s, env, ctx);
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
      fail(s.loc, "'while' loops are not supported yet");
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
  if (++callDepth_ > kMaxCallDepth) {
    --callDepth_;
    fail(call.loc, "macro nesting too deep (recursive macro?)");
  }
  struct Guard {
    int& d;
    ~Guard() { --d; }
  } guard{callDepth_};
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

void Elaborator::elabFor(const py::Stmt& s, Env& env, BlockCtx& ctx) {
  if (!s.orelse.empty()) fail(s.orelse[0]->loc, "'for ... else' is not supported in a kernel");
  const py::Expr& iter = *s.iter;
  const py::Expr& target = *s.targets[0];
  Value fn = iter.kind == py::ExprKind::Call ? eval(*iter.lhs, env) : Value::none();
  std::string name = fn.kind == K::DialectFn ? fn.s : "";
  if (name == "builtins.range" || name == "Serial") name = "serial";
  if (name == "Unroll") name = "unroll";  // T.Unroll(n, explicit=True): TileLang's spelling

  if (iter.kind != py::ExprKind::Call || name.empty()) {
    // A constant sequence: unrolled while building the kernel.
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
    return;
  }

  auto bodyInto = [&](std::vector<Stmt>& out, BlockCtx inner) {
    inner.out = &out;
    elabScopedBlock(s.body, env, inner, "loop", s.loc, /*loop=*/true);
    return std::make_shared<SeqStmt>(std::move(out), s.loc);
  };
  // Loop variables are visible in the body only.
  auto bindTemp = [&](const std::string& n, Value v) {
    auto old = env.names.find(n);  // a name of an enclosing env shows through again by itself
    std::optional<Value> saved =
        old != env.names.end() ? std::optional<Value>(old->second) : std::nullopt;
    env.bind(n, std::move(v));
    return saved;
  };
  auto restore = [&](const std::string& n, const std::optional<Value>& saved) {
    if (saved)
      env.names[n] = *saved;  // the same binding again (keeps its serial)
    else
      env.names.erase(n);
  };

  if (name == "Parallel") {
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
    for (auto& [n, v] : saved) restore(n, v);
    ctx.out->push_back(p);
    return;
  }

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
      checkKeywords(iter, "T." + fn.s, {"explicit"});
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
    checkKeywords(iter, what, {"explicit"});
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

void Elaborator::elabWith(const py::Stmt& s, Env& env, BlockCtx& ctx) {
  if (s.withItems.size() != 1) fail(s.loc, "only one item per 'with' is supported in a kernel");
  const py::WithItem& item = s.withItems[0];
  const py::Expr& call = *item.context;
  Value fn = call.kind == py::ExprKind::Call ? eval(*call.lhs, env) : eval(call, env);
  std::string name = fn.kind == K::DialectFn ? fn.s : "";
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
       "only 'with T.Kernel', 'with T.Persistent', 'with T.SimtVF', 'with T.SimdVF' and "
       "'with T.Task' are supported in a kernel");
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
  if (simt) {
    const py::Expr* t = argument("threads", 0);
    if (!t) fail(call.loc, "T.SimtVF needs threads=K");
    // threads=(x, y) is a 2-D thread block of x*y threads; no thread index
    // is modelled, so only the count matters.
    Value threads = eval(*t, env);
    std::vector<Value> dims = threads.isSequence() ? threads.elts : std::vector<Value>{threads};
    if (dims.empty() || dims.size() > 3)
      fail(t->loc, "threads must be an integer or a tuple of 1 to 3 integers");
    region->threads = 1;
    for (const auto& d : dims) {
      int64_t n = toConstInt(d, t->loc, "threads");
      if (n < 1) fail(t->loc, "threads must be positive");
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
  elabScopedBlock(body, env, inner, "T." + name + " region", loc, /*loop=*/false);
  region->body = std::make_shared<SeqStmt>(std::move(out), loc);
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
