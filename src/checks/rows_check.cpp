// The rows check (SPEC §1, §5; checks/rows_check.h).
#include "checks/rows_check.h"

namespace openrecipes::checks {

RowsStatus rows_status(bool standard) {
  if (!standard) return {"not applicable (non-standard workload)", std::nullopt};
  const std::string why = "not verified: the registry records no rows build to check rows_sha256 against";
  return {why, why};
}

}  // namespace openrecipes::checks
