// Values shared by the lowering passes (SPEC §6): what each storage became
// (versions, mode, clock) and what the synchronisation pass emitted. These
// are plain data; each pass is its own file pair (VersionModes, SyncInsertion,
// Materialize, LoweredVerifier) and Lowering.h runs them in order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "schedule/Schedule.h"

namespace tilesched::transform {

// How one storage is lowered.
struct StorageLowering {
  ir::Storage storage;
  ir::Buffer buffer;  // the allocating buffer (names in reports)
  int64_t versions = 1;
  schedule::VersionSource source = schedule::VersionSource::Ineligible;
  // Iteration or Counter when versions > 1; nullopt otherwise.
  std::optional<ir::VersionMode> mode;
  std::vector<const ir::ForStmt*> owners;
  ir::Var counter;  // counter mode: the 32-bit epoch counter
  // Per owner loop: the clock the version index and the rings use
  // (iteration mode: the flattened iteration number; counter mode: the counter).
  std::map<const ir::ForStmt*, ir::Expr> clock;
};

struct SyncStats {
  int64_t setFlag = 0;  // static set_flag statements (pre-sets included)
  int64_t waitFlag = 0;
  int64_t pipeBarrier = 0;                  // pipe_barrier statements (ALL included)
  std::map<std::string, int64_t> eventIds;  // per hard event ("MTE2_V"): ids used (max id + 1)
};

// Everything the lowering decided about one kernel.
struct LoweringPlan {
  std::vector<StorageLowering> storages;  // in Kernel::storages order
  int nextVarId = 0;                      // fresh scalar variables start here
  // Statements rebuilt by a pass -> the statement they were made from; chains
  // lead back to the input kernel's statements (the analyses' keys).
  std::map<const ir::StmtNode*, const ir::StmtNode*> rebuiltFrom;

  const ir::StmtNode* origin(const ir::StmtNode* s) const {
    for (auto it = rebuiltFrom.find(s); it != rebuiltFrom.end(); it = rebuiltFrom.find(s))
      s = it->second;
    return s;
  }
  const ir::ForStmt* origin(const ir::ForStmt* loop) const {
    return static_cast<const ir::ForStmt*>(origin(static_cast<const ir::StmtNode*>(loop)));
  }

  const StorageLowering* find(const ir::Storage& s) const {
    for (const auto& l : storages)
      if (l.storage == s) return &l;
    return nullptr;
  }
  ir::Var freshVar(const std::string& name, ir::DType t);
};

}  // namespace tilesched::transform
