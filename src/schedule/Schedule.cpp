#include "schedule/Schedule.h"

namespace tilesched::schedule {

std::string_view versionSourceName(VersionSource s) {
  switch (s) {
    case VersionSource::Solver:
      return "solver";
    case VersionSource::Fixed:
      return "fixed";
    case VersionSource::OptOut:
      return "opt-out";
    case VersionSource::Manual:
      return "manual";
    case VersionSource::Ineligible:
      return "ineligible";
  }
  return "ineligible";
}

const ListSchedule* KernelSchedule::find(const ir::ForStmt* loop) const {
  for (const ListSchedule& list : lists)
    if (list.loop == loop) return &list;
  return nullptr;
}

const StorageDecision* KernelSchedule::find(const ir::Storage& storage) const {
  for (const StorageDecision& d : storages)
    if (d.storage == storage) return &d;
  return nullptr;
}

int64_t KernelSchedule::versionsOf(const ir::Storage& storage) const {
  const StorageDecision* d = find(storage);
  return d ? d->versions : 1;
}

}  // namespace tilesched::schedule
