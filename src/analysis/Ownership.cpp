// Owners and eligibility (see Ownership.h). Steps: index the loop lists,
// apply explicit claims, infer owners of the remaining candidates bottom-up,
// then emit the warnings of SPEC §2.1/§2.2.
#include "analysis/Ownership.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "ir/Functor.h"

namespace tilesched::analysis {

using namespace ir;

const StorageOwnership* Ownership::find(const Storage& s) const {
  for (const auto& o : storages)
    if (o.storage == s) return &o;
  return nullptr;
}

bool Ownership::isOwner(const ForStmt* loop, const Storage& s) const {
  const StorageOwnership* o = find(s);
  if (!o || !o->eligible) return false;
  for (const auto& owner : o->owners)
    if (owner.get() == loop) return true;
  return false;
}

std::vector<Storage> Ownership::ownedBy(const ForStmt* loop) const {
  std::vector<Storage> out;
  for (const auto& o : storages)
    if (isOwner(loop, o.storage)) out.push_back(o.storage);
  return out;
}

namespace {

std::string loopName(const ForStmt& f) {
  return fmt::format("'{}' (line {})", f.var->name, f.loc.line);
}

bool touches(const Unit& u, const Storage& s) {
  for (const auto& a : u.accesses)
    if (a.storage == s) return true;
  return false;
}

Guard concat(const Guard& a, const Guard& b) {
  Guard out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

struct Cover {
  bool ok = false;
  std::vector<Stmt> owners;
  std::string reason;
};

class OwnerInference {
 public:
  OwnerInference() = default;

  // Owners of `s` inside `list`, or why there are none.
  Cover cover(const UnitList& list, const Storage& s) {
    bool pipelined = !list.isRoot() && list.loop()->isPipelined();
    bool direct = false;
    SourceLoc directLoc;
    std::vector<const Unit*> children;
    for (const auto& u : list.units) {
      if (!touches(u, s)) continue;
      if (u.isLoop()) {
        children.push_back(&u);
      } else if (!direct) {
        direct = true;
        directLoc = u.loc;
      }
    }
    Cover out;
    if (!direct && !children.empty()) {
      bool all = true;
      for (const Unit* c : children) {
        Cover sub = cover(*c->body, s);
        if (!sub.ok) {
          all = false;
          if (out.reason.empty()) out.reason = sub.reason;
          continue;
        }
        out.owners.insert(out.owners.end(), sub.owners.begin(), sub.owners.end());
      }
      if (all) {
        out.ok = true;
        return out;
      }
      out.owners.clear();
    }
    if (pipelined) {
      std::vector<Guard> writes;
      SourceLoc bad;
      if (writeFirst(list, s, {}, writes, bad)) return Cover{true, {list.loopStmt}, ""};
      out.reason = fmt::format(
          "it is read before it is written in an iteration of loop {} (read at line {})",
          loopName(*list.loop()), bad.line);
      return out;
    }
    if (direct && out.reason.empty()) {
      out.reason =
          list.isRoot()
              ? fmt::format("it is accessed outside every pipelined loop (line {})", directLoc.line)
              : "";
    }
    return out;
  }

  // Every read of `s` in one iteration of `list` follows a write whose guard
  // it implies.
  static bool writeFirst(const UnitList& list, const Storage& s, const Guard& prefix,
                         std::vector<Guard>& writes, SourceLoc& bad) {
    for (const auto& u : list.units) {
      if (u.isLoop()) {
        if (touches(u, s) && !writeFirst(*u.body, s, concat(prefix, u.guard), writes, bad))
          return false;
        continue;
      }
      for (const auto& a : u.accesses) {
        if (a.storage != s) continue;
        Guard g = concat(prefix, a.guard);
        if (a.isWrite()) {
          writes.push_back(std::move(g));
          continue;
        }
        bool covered = false;
        for (const auto& w : writes) covered |= guardImplies(g, w);
        if (!covered) {
          bad = a.loc;
          return false;
        }
      }
    }
    return true;
  }

  // Does any access of `s` in `list` (recursively) happen under a condition?
  static bool guarded(const UnitList& list, const Storage& s) {
    for (const auto& u : list.units) {
      if (!touches(u, s)) continue;
      if (!u.guard.empty()) return true;
      if (u.isLoop()) {
        if (guarded(*u.body, s)) return true;
        continue;
      }
      for (const auto& a : u.accesses)
        if (a.storage == s && !a.guard.empty()) return true;
    }
    return false;
  }
};

void indexLists(const UnitList& list, std::map<const StmtNode*, const UnitList*>& lists,
                std::map<const StmtNode*, std::vector<const StmtNode*>>& ancestors,
                std::vector<const StmtNode*>& stack) {
  for (const auto& u : list.units) {
    if (!u.isLoop()) continue;
    lists[u.stmt.get()] = u.body.get();
    ancestors[u.stmt.get()] = stack;
    stack.push_back(u.stmt.get());
    indexLists(*u.body, lists, ancestors, stack);
    stack.pop_back();
  }
}

}  // namespace

Ownership analyzeOwnership(const Kernel& kernel, const UnitList& root, DiagnosticEngine& diags) {
  Ownership out;
  std::map<const StmtNode*, const UnitList*> lists;
  std::map<const StmtNode*, std::vector<const StmtNode*>> ancestors;
  std::vector<const StmtNode*> stack;
  indexLists(root, lists, ancestors, stack);

  // Explicit claims, by storage, in program order.
  struct Claim {
    Stmt loop;
    Buffer buffer;
    SourceLoc loc;
  };
  std::map<int, std::vector<Claim>> claims;
  forEachStmt(kernel.body, [&](const Stmt& s) {
    const auto* f = as<ForStmt>(s);
    if (!f) return;
    for (const auto& b : f->eligible)
      claims[b->storage->id].push_back({s, b, f->eligibleLoc.valid() ? f->eligibleLoc : f->loc});
  });

  OwnerInference infer;
  for (const auto& st : kernel.storages) {
    StorageOwnership o;
    o.storage = st;
    for (const auto& b : kernel.buffers)
      if (b->storage == st && !b->isAlias) {
        o.buffer = b;
        break;
      }
    if (!o.buffer)
      for (const auto& b : kernel.buffers)
        if (b->storage == st) {
          o.buffer = b;
          break;
        }
    o.candidate = isCapacityChecked(st->scope);
    for (const auto& m : kernel.annotations.manual)
      if (m.storage == st) {
        o.manual = true;
        o.ring = m.ring;
      }
    const VersionSpec* spec = nullptr;
    for (const auto& v : kernel.annotations.bufferVersions)
      if (v.storage == st) spec = &v;
    o.optOut = spec && spec->isOptOut();
    std::string name = o.buffer ? o.buffer->name : st->name;

    auto claimIt = claims.find(st->id);
    if (claimIt != claims.end()) {
      const Claim& first = claimIt->second.front();
      const std::string& claimed = first.buffer->name;
      if (o.manual) {
        diags.warningOnce(
            "manual-claim:" + std::to_string(st->id), first.loc,
            fmt::format("'{}' is a manual multi-buffer (T.annotate_manual_multi_buffer), so its "
                        "multi_buffer_eligible claim is dropped; its versions are the ones written "
                        "in its indices",
                        claimed));
      } else if (o.optOut) {
        diags.warningOnce(
            "opt-out-claim:" + std::to_string(st->id), first.loc,
            fmt::format(
                "{{{0}: 1}} opts '{0}' out of multi-buffering and overrides its "
                "multi_buffer_eligible claim; use {{{0}: (1, \"auto\")}} to keep it eligible "
                "with one version",
                claimed));
      } else if (!o.candidate) {
        diags.warningOnce(
            "claim-scope:" + std::to_string(st->id), first.loc,
            fmt::format("'{}' is in {}, which is never multi-buffered; its multi_buffer_eligible "
                        "claim is dropped",
                        claimed, memScopeName(st->scope)));
      } else {
        o.explicitClaim = true;
        o.eligible = true;
        // Nested claims: keep the outermost claiming loops.
        for (const auto& c : claimIt->second) {
          bool nested = false;
          for (const auto& other : claimIt->second) {
            if (other.loop == c.loop) continue;
            for (const StmtNode* anc : ancestors[c.loop.get()]) nested |= anc == other.loop.get();
          }
          if (nested) {
            const auto* outer = as<ForStmt>(c.loop);
            diags.warningOnce(
                "nested-claim:" + std::to_string(st->id), c.loc,
                fmt::format("'{}' is claimed by nested loops; owners cannot nest, so the claim of "
                            "loop {} is dropped",
                            c.buffer->name, loopName(*outer)));
            continue;
          }
          bool dup = false;
          for (const auto& ow : o.owners) dup |= ow == c.loop;
          if (!dup) o.owners.push_back(c.loop);
        }
      }
    }

    if (!o.explicitClaim) {
      if (!o.candidate) {
        o.reason = fmt::format("{} is never multi-buffered", memScopeName(st->scope));
      } else if (o.manual) {
        o.reason = "it is a manual multi-buffer";
      } else if (o.optOut) {
        o.reason = fmt::format("it is opted out by {{{}: 1}}", name);
      } else {
        Cover c = infer.cover(root, st);
        bool accessed = false;
        for (const auto& u : root.units) accessed |= touches(u, st);
        if (!accessed) {
          o.reason = "it is never accessed";
        } else if (c.ok && !c.owners.empty()) {
          o.eligible = true;
          o.owners = c.owners;
        } else {
          o.reason = c.reason.empty() ? "it is not accessed inside a pipelined loop" : c.reason;
        }
      }
    }
    if (o.eligible) {
      for (const auto& ow : o.owners) {
        if (const auto* f = as<ForStmt>(ow)) o.versionBound = std::max(o.versionBound, f->numStages);
        auto it = lists.find(ow.get());
        if (it != lists.end() && OwnerInference::guarded(*it->second, st)) o.guardedEpoch = true;
        const auto* f = as<ForStmt>(ow);
        if (f && f->forKind == ForKind::Persistent && it != lists.end())
          for (const auto& u : it->second->units)
            o.guardedEpoch |= !u.guard.empty() && touches(u, st);
      }
    }
    if (spec && spec->count && *spec->count >= 2 && !o.eligible) {
      diags.warningOnce(
          "fixed-ineligible:" + std::to_string(st->id), spec->loc,
          fmt::format(
              "'{}' asks for {} versions but is not multi-buffer eligible ({}); it keeps one "
              "version",
              spec->buffer->name, *spec->count, o.reason));
    }
    out.storages.push_back(std::move(o));
  }
  return out;
}

}  // namespace tilesched::analysis
