// `@dataclass` classes in factory code: parametrized tests pass case objects
// (`Case(15, 13, 47, False)`) to kernel factories, which read their fields
// and `@property` values (upstream's test_gemm_padding_irregular_shapes.py).
//
// What it does: a class decorated with `@dataclass` / `@dataclass(...)` /
// `@dataclasses.dataclass` is a constructor of objects whose fields are the
// class body's annotated names, in order, with their defaults; `obj.field`
// reads a field and `obj.prop` runs a `@property` method with `self` bound.
// Assumes: the class body holds annotated fields, methods and docstrings.
// Guarantees: a missing or unknown argument, a plain method, `__post_init__`
// or an unknown attribute is an error naming it; any other class stays an
// opaque value as before (not callable at compile time).
#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"

namespace tilesched::frontend {

using K = Value::Kind;

namespace {

// Opaque values made here: Value::i tells a class from one of its objects.
constexpr int64_t kClassValue = 1;
constexpr int64_t kObjectValue = 2;

bool isDataclassObject(const Value& v, int64_t which) {
  return v.kind == K::Opaque && v.def && v.def->kind == py::StmtKind::ClassDef && v.i == which;
}

bool isDecorator(const py::Expr& d, const std::string& name) {
  const py::Expr* e = &d;
  if (e->kind == py::ExprKind::Call && e->lhs) e = e->lhs.get();
  if (e->kind == py::ExprKind::Name) return e->id == name;
  return e->kind == py::ExprKind::Attribute && e->id == name;
}

// The annotated fields of a dataclass body, in order.
std::vector<const py::Stmt*> fieldsOf(const py::Stmt& cls) {
  std::vector<const py::Stmt*> out;
  for (const auto& s : cls.body)
    if (s->kind == py::StmtKind::AnnAssign && !s->targets.empty() &&
        s->targets[0]->kind == py::ExprKind::Name)
      out.push_back(s.get());
  return out;
}

const py::Stmt* methodOf(const py::Stmt& cls, const std::string& name) {
  for (const auto& s : cls.body)
    if (s->kind == py::StmtKind::FunctionDef && s->name == name) return s.get();
  return nullptr;
}

}  // namespace

bool Elaborator::isDataclass(const py::Stmt& classDef) {
  for (const auto& d : classDef.decorators)
    if (d && isDecorator(*d, "dataclass")) return true;
  return false;
}

bool Elaborator::isConstantDataclassObject(const Value& v) {
  if (!isDataclassObject(v, kObjectValue)) return false;
  for (const auto& [key, field] : v.items)
    if (!field.isConstant() && !isConstantDataclassObject(field)) return false;
  return true;
}

Value Elaborator::dataclassClass(const py::Stmt& classDef, std::shared_ptr<Env> env) {
  Value cls = Value::opaque("class " + classDef.name);
  cls.def = &classDef;
  cls.closure = std::move(env);
  cls.i = kClassValue;
  return cls;
}

Value Elaborator::constructDataclass(const Value& cls, const py::Expr& call, Env& env) {
  const py::Stmt& def = *cls.def;
  if (methodOf(def, "__post_init__") || methodOf(def, "__init__"))
    fail(call.loc, fmt::format("dataclass '{}' defines __init__ or __post_init__, which is not "
                               "supported yet",
                               def.name));
  auto fields = fieldsOf(def);
  auto args = positional(call, env);
  if (args.size() > fields.size())
    fail(call.loc, fmt::format("{}() takes {} positional argument{} but {} were given", def.name,
                               fields.size(), fields.size() == 1 ? "" : "s", args.size()));
  for (const auto& k : call.keywords) {
    bool known = false;
    for (const py::Stmt* f : fields) known |= f->targets[0]->id == k.name;
    if (!known)
      fail(k.loc, fmt::format("{}() got an unexpected keyword argument '{}'", def.name, k.name));
  }
  Value obj = Value::opaque(def.name + " object");
  obj.def = &def;
  obj.closure = cls.closure;
  obj.i = kObjectValue;
  for (size_t n = 0; n < fields.size(); ++n) {
    const std::string& name = fields[n]->targets[0]->id;
    Value v;
    if (n < args.size()) {
      if (keyword(call, name))
        fail(call.loc, fmt::format("{}() got multiple values for argument '{}'", def.name, name));
      v = args[n];
    } else if (const py::Keyword* k = keyword(call, name)) {
      v = eval(*k->value, env);
    } else if (fields[n]->value) {
      v = eval(*fields[n]->value, *cls.closure);
    } else {
      fail(call.loc, fmt::format("{}() missing required argument '{}'", def.name, name));
    }
    obj.items.emplace_back(Value::str(name), std::move(v));
  }
  return obj;
}

std::optional<Value> Elaborator::dataclassAttribute(const Value& obj, const std::string& id,
                                                    SourceLoc loc) {
  if (!isDataclassObject(obj, kObjectValue)) return std::nullopt;
  for (const auto& [key, v] : obj.items)
    if (key.s == id) return v;
  const py::Stmt* method = methodOf(*obj.def, id);
  if (!method) fail(loc, fmt::format("'{}' object has no attribute '{}'", obj.def->name, id));
  bool property = false;
  for (const auto& d : method->decorators) property |= d && isDecorator(*d, "property");
  if (!property || method->params.empty())
    fail(loc, fmt::format("'{}.{}' is a method; tilesched evaluates fields and @property "
                          "methods of a dataclass, not method calls, yet",
                          obj.def->name, id));
  CallLevel level = enterCall(loc, "call nesting too deep (recursive property?)");
  Value fn = Value::opaque(id);
  fn.def = method;
  fn.closure = obj.closure;
  Env local;
  local.parent = obj.closure;
  local.bind(method->params[0].name, obj);
  return runFunctionBody(fn, local);
}

}  // namespace tilesched::frontend
