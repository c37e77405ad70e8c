// T.StridedTensor kernel parameters: a global tensor whose dimensions lie
// the given strides apart (docs/language.md, "Strided tensors").
//
// Expects: the annotation `T.StridedTensor(shape, strides, dtype="float32")`
// of a @T.prim_func parameter (positional or keyword; `scope` may only be
// "global").
// Guarantees: the value is the opaque "T.StridedTensor" [shape, dtype,
// strides]; the parameter's BufferNode gets one integer stride per dimension
// (constants, T.dynamic sizes or scalar parameters). Strides known at compile
// time that make two elements share an address are an error at the
// annotation; the others are checked when the run knows them (sim/Run.cpp).
// A stride that is a T.dynamic size takes its dense value from the file's
// own call (DynamicFromCall.cpp) or, in the run, from the shape.
//
//   def k(A: T.StridedTensor((m, 128), (s0, 1), "float32")):   A: shape (m, 128),
//       ...                                                    strides (s0, 1)
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/ElaboratorImpl.h"

namespace tilesched::frontend {

using namespace ir;
using K = Value::Kind;

Value Elaborator::dialectStridedTensor(const py::Expr& call, Env& env) {
  checkKeywords(call, "T.StridedTensor", {"shape", "strides", "dtype", "scope"});
  auto a = positional(call, env);
  const char* kForm = "T.StridedTensor(shape, strides, dtype)";
  if (a.size() > 4)
    fail(call.loc, fmt::format("T.StridedTensor takes a shape, strides, a dtype and a scope ({} "
                               "arguments given): {}",
                               a.size(), kForm));
  auto arg = [&](size_t i, const char* name) -> std::optional<Value> {
    const py::Keyword* k = keyword(call, name);
    if (k && i < a.size()) fail(k->value->loc, fmt::format("T.StridedTensor got '{}' twice", name));
    if (k) return eval(*k->value, env);
    if (i < a.size()) return a[i];
    return std::nullopt;
  };
  auto shape = arg(0, "shape");
  auto strides = arg(1, "strides");
  if (!shape || !strides || strides->kind == K::Str || strides->kind == K::DType)
    fail(call.loc, fmt::format("T.StridedTensor needs a shape and strides: {}", kForm));
  if (auto scope = arg(3, "scope");
      scope && scope->kind != K::None && !(scope->kind == K::Str && scope->s == "global"))
    fail(call.loc, "T.StridedTensor is a global tensor; scope= may only be \"global\"");
  Value t = Value::opaque("T.StridedTensor");
  t.elts = {*shape, arg(2, "dtype").value_or(Value::str("float32")), *strides};
  return t;
}

std::vector<Expr> Elaborator::tensorDims(const Value& v, SourceLoc loc, const char* what) {
  std::vector<Value> dims = v.isSequence() ? v.elts : std::vector<Value>{v};
  if (dims.empty()) fail(loc, "a tensor shape needs at least one dimension");
  std::vector<Expr> out;
  for (const auto& d : dims) {
    Expr e = toExpr(d, loc);
    if (isFloat(e->dtype)) fail(loc, fmt::format("{} must be integers", what));
    if (auto c = asConstInt(e); c && *c <= 0)
      fail(loc, fmt::format("{} must be positive, got {}", what, *c));
    out.push_back(e);
  }
  return out;
}

std::vector<Expr> Elaborator::tensorStrides(const Value& v, const std::vector<Expr>& shape,
                                            SourceLoc loc) {
  auto strides = tensorDims(v, loc, "tensor strides");
  if (strides.size() != shape.size())
    fail(loc, fmt::format("T.StridedTensor has {} dimension{} but {} stride{}; give one stride "
                          "per dimension",
                          shape.size(), shape.size() == 1 ? "" : "s", strides.size(),
                          strides.size() == 1 ? "" : "s"));
  std::vector<int64_t> s, n;
  for (size_t d = 0; d < shape.size(); ++d) {
    auto sd = asConstInt(strides[d]), nd = asConstInt(shape[d]);
    if (!sd || !nd) return strides;  // checked when the run knows them
    s.push_back(*sd);
    n.push_back(*nd);
  }
  if (stridesMayOverlap(n, s))
    fail(loc, fmt::format("strides ({}) make two elements of shape ({}) share an address; "
                          "overlapping strides are not supported yet",
                          fmt::join(s, ", "), fmt::join(n, ", ")));
  return strides;
}

}  // namespace tilesched::frontend
