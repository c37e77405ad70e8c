// Elaboration, module level: runs the module and factory code that can be
// evaluated at compile time (imports, definitions, factory calls found in the
// file's own tests), then builds the tile IR of every `@T.prim_func` kernel.
// See Elaborator.h for the contract. The host-Python evaluator is
// HostEval.cpp, kernel bodies ElabKernel.cpp, tile operations TileOps.cpp,
// T.simd intrinsics SimdOps.cpp.
#include "frontend/Elaborator.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "frontend/ConstantBounds.h"
#include "frontend/ElaboratorImpl.h"
#include "frontend/ManualRings.h"
#include "frontend/NeverWritten.h"
#include "frontend/Parser.h"
#include "ir/Verifier.h"

namespace tilesched::frontend {

using K = Value::Kind;
using namespace ir;

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
    } else {
      Diagnostic& d = diags_.error({}, "no @T.prim_func kernel found in this file");
      // A test file whose kernels live in a sibling module it imports
      // (`from example_compress import run_compress_decode`): name that file.
      namespace fs = std::filesystem;
      fs::path dir = options_.moduleDir.empty() ? fs::path(file_->path()).parent_path()
                                                : fs::path(options_.moduleDir);
      if (dir.empty()) dir = ".";
      for (const auto& st : module.body) {
        if (st->kind != py::StmtKind::Import || !st->fromImport) continue;
        for (const auto& n : st->importNames) {
          std::string mod = n.module.substr(0, n.module.rfind('.'));
          if (mod.empty() || mod[0] == '.' || mod.find('.') != std::string::npos) continue;
          fs::path sibling = dir / (mod + ".py");
          std::error_code ec;
          if (!fs::is_regular_file(sibling, ec)) continue;
          d.notes.push_back(
              {st->loc, fmt::format("'{}' comes from {} next to this file; if the kernels are "
                                    "there, run tilesched on that file",
                                    n.module.substr(mod.size() + 1), sibling.filename().string())});
          break;
        }
      }
    }
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
  if (kernels_.empty() && !diags_.hasErrors() && options_.func.empty()) compileTestDefinedKernel(m);
}

// pytest runs each test; tilesched compiles one kernel program, so it takes
// the first test that defines a kernel, as `--func` would, and says so.
void Elaborator::compileTestDefinedKernel(const py::Module& m) {
  std::vector<const py::Stmt*> tests;
  for (const auto& s : m.body)
    if (s->kind == py::StmtKind::FunctionDef && !isPrimFunc(*s) && !isMacro(*s) &&
        isTestFunction(*s) && definesDeep(s->body))
      tests.push_back(s.get());
  if (tests.empty()) return;
  std::vector<std::string> others;
  for (size_t i = 1; i < tests.size(); ++i) others.push_back(tests[i]->name);
  diags_.warning(
      tests.front()->loc,
      fmt::format("this file has no module-level kernel or factory; compiling the kernel that test "
                  "function '{}' defines{}",
                  tests.front()->name,
                  others.empty() ? std::string()
                                 : fmt::format(" (--func NAME compiles another: {})",
                                               fmt::join(others, ", "))));
  runFactory(*tests.front(), moduleEnv_, tests.front()->name, true, nullptr, nullptr);
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

namespace {
// Puts a member back as it was when the scope ends (a factory's values from
// its file's call hold only while it runs).
template <class T>
struct RestoredOnExit {
  T& value;
  T saved;
  explicit RestoredOnExit(T& v) : value(v), saved(v) {}
  ~RestoredOnExit() { value = std::move(saved); }
};
}  // namespace

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
  if (!missing.empty() && wanted && !call) bindOwnParameterSet(def, *parent, *env, missing);
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
  RestoredOnExit restoreDynamic{dynamicFromCall_};
  RestoredOnExit restoreInputs{inputsFromCall_};
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
    if (!v.isConstant() && !isConstantDataclassObject(v)) return std::nullopt;
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

// A test function compiled as a factory (compileTestDefinedKernel, --func)
// takes what pytest would give it first: the first of its own
// @pytest.mark.parametrize sets that gives every missing parameter a value.
void Elaborator::bindOwnParameterSet(const py::Stmt& def, Env& parent, Env& env,
                                     std::vector<const py::Param*>& missing) {
  for (const ParamSet& set : parametrizeSets(def, parent)) {
    bool complete = true;
    for (const py::Param* p : missing) {
      bool given = false;
      for (const auto& [name, v] : set.values) given |= name == p->name && v.kind != K::Undefined;
      complete = complete && given;
    }
    if (!complete) continue;
    std::vector<std::string> shown;
    for (const auto& [name, v] : set.values) {
      env.bind(name, v);
      shown.push_back(name + "=" + describe(v));
    }
    Diagnostic& n = diags_.warning(
        def.loc, fmt::format("'{}' takes {} from its @pytest.mark.parametrize; -D NAME=VALUE "
                             "overrides them",
                             def.name, fmt::join(shown, ", ")));
    n.severity = Severity::Note;
    n.notes = set.picks;
    missing.clear();
    return;
  }
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
      case py::StmtKind::ClassDef: {
        std::shared_ptr<Env> alias(std::shared_ptr<Env>{}, &env);  // as for functions
        env.bind(s.name, isDataclass(s) ? dataclassClass(s, alias) : Value::opaque(s.name));
        break;
      }
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

}  // namespace tilesched::frontend
