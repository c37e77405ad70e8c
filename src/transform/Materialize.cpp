// Materialisation (see Materialize.h): one mutator that swaps every versioned
// buffer for its N-version twin and prepends the index of the innermost
// enclosing owner loop.
#include "transform/Materialize.h"

#include "schedule/Memory.h"

#include <map>

#include "ir/Functor.h"
#include "ir/IROperator.h"
#include "support/Diagnostics.h"

namespace tilesched::transform {

using namespace ir;

namespace {

struct Versioned {
  const StorageLowering* lowering;
  Storage storage;  // the N-times-larger storage
};

class AddVersions : public IRMutator {
 public:
  std::map<const BufferNode*, Buffer> buffers;  // old -> versioned
  std::map<const StorageNode*, Versioned> storages;
  LoweringPlan* plan = nullptr;

  Stmt mutateStmt(const Stmt& s) override {
    Stmt out = IRMutator::mutateStmt(s);
    if (out && out != s) plan->rebuiltFrom[out.get()] = s.get();
    return out;
  }

  Expr mutateExpr(const Expr& e) override {
    if (e && e->kind == ExprKind::Load) {
      auto it = buffers.find(e->buffer.get());
      if (it != buffers.end()) {
        std::vector<Expr> idx{elementVersion(e->buffer->storage)};
        for (const auto& o : e->operands) idx.push_back(mutateExpr(o));
        return load(it->second, std::move(idx));
      }
    }
    return IRMutator::mutateExpr(e);
  }

 protected:
  Stmt mutateFor(const ForStmt& s, const Stmt& self) override {
    active_.push_back(plan->origin(&s));
    Stmt out = IRMutator::mutateFor(s, self);
    active_.pop_back();
    return out;
  }
  Stmt mutateStore(const StoreStmt& s, const Stmt& self) override {
    auto it = buffers.find(s.buffer.get());
    if (it == buffers.end()) return IRMutator::mutateStore(s, self);
    std::vector<Expr> idx{elementVersion(s.buffer->storage)};
    for (const auto& i : s.indices) idx.push_back(mutateExpr(i));
    auto n = std::make_shared<StoreStmt>(it->second, std::move(idx), mutateExpr(s.value), s.loc);
    n->atomic = s.atomic;
    return n;
  }
  Stmt mutateReduce(const ReduceStmt& s, const Stmt& self) override {
    Stmt out = IRMutator::mutateReduce(s, self);
    if (out == self || !buffers.count(s.src.buffer.get())) return out;
    // The reduced dimension moves one to the right behind the version dimension.
    auto n = std::make_shared<ReduceStmt>(*as<ReduceStmt>(out));
    n->dim += 1;
    return n;
  }
  bool mutateRegion(const Region& r, Region& out) override {
    bool changed = IRMutator::mutateRegion(r, out);
    auto it = buffers.find(r.buffer.get());
    if (it == buffers.end()) return changed;
    const auto& v = storages.at(r.buffer->storage.get());
    Expr index = versionIndex(r.buffer->storage);
    out.buffer = it->second;
    // Outside every owner (a whole-buffer fill): all versions at once.
    Range version = index ? Range{index, 1} : Range{intImm(0), v.lowering->versions};
    out.ranges.insert(out.ranges.begin(), version);
    return true;
  }

 private:
  std::vector<const ForStmt*> active_;

  // A load or store names one version: it must be inside an owner
  // (ownership leaves only pure fills outside the owners of a versioned storage).
  Expr elementVersion(const Storage& storage) {
    Expr index = versionIndex(storage);
    TS_INTERNAL(index != nullptr, "an element of '" + storage->name +
                                      "' is accessed outside its owner loops, where it has no "
                                      "version");
    return index;
  }

  // The version index of `storage` at the current point; null outside its owners.
  Expr versionIndex(const Storage& storage) {
    const auto& v = storages.at(storage.get());
    for (auto it = active_.rbegin(); it != active_.rend(); ++it) {
      auto c = v.lowering->clock.find(*it);
      if (c != v.lowering->clock.end()) return floormod(c->second, intImm(v.lowering->versions));
    }
    return nullptr;
  }
};

}  // namespace

Kernel materializeVersions(const Kernel& kernel, LoweringPlan& plan, const Target& target) {
  AddVersions pass;
  pass.plan = &plan;
  Kernel out = kernel;
  out.storages.clear();
  std::map<const StorageNode*, Storage> newStorage;
  for (const auto& st : kernel.storages) {
    const StorageLowering* l = plan.find(st);
    if (!l || l->versions <= 1 || !l->mode) {
      out.storages.push_back(st);
      continue;
    }
    auto n = std::make_shared<StorageNode>(*st);
    n->bytes = schedule::alignedVersionBytes(st, target) * l->versions;
    out.storages.push_back(n);
    newStorage[st.get()] = n;
    pass.storages[st.get()] = Versioned{l, n};
    VersionedStorage record;
    record.storage = n;
    record.versions = l->versions;
    for (const auto* owner : l->owners)
      record.ownerLoops.emplace_back(owner->var->name, owner->loc);
    out.annotations.versioned.push_back(std::move(record));
  }
  out.buffers.clear();
  for (const auto& b : kernel.buffers) {
    auto it = newStorage.find(b->storage.get());
    if (it == newStorage.end()) {
      out.buffers.push_back(b);
      continue;
    }
    auto n = std::make_shared<BufferNode>(*b);
    n->storage = it->second;
    n->versionDim = pass.storages.at(b->storage.get()).lowering->versions;
    n->versionStrideBytes = schedule::alignedVersionBytes(b->storage, target);
    n->shape.insert(n->shape.begin(), intImm(n->versionDim));
    pass.buffers[b.get()] = n;
    out.buffers.push_back(n);
    if (!b->isAlias)
      for (auto& record : out.annotations.versioned)
        if (record.storage == it->second) record.buffer = n;
  }
  for (auto& p : out.params)
    if (p.buffer && pass.buffers.count(p.buffer.get())) p.buffer = pass.buffers.at(p.buffer.get());
  out.body = pass.mutateStmt(kernel.body);
  // The written-back map of T.annotate_buffer_versions names the new storages.
  for (auto& [st, n] : out.annotations.selectedVersions) {
    auto it = newStorage.find(st.get());
    if (it != newStorage.end()) st = it->second;
  }
  for (auto& spec : out.annotations.bufferVersions) {
    if (auto it = newStorage.find(spec.storage.get()); it != newStorage.end())
      spec.storage = it->second;
    if (auto it = pass.buffers.find(spec.buffer.get()); it != pass.buffers.end())
      spec.buffer = it->second;
  }
  for (auto& m : out.annotations.manual) (void)m;
  return out;
}

}  // namespace tilesched::transform
