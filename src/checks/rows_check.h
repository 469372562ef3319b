// The rows check (SPEC §1, §5): a standard-workload recipe's rows must verify against the registry's reference rows
// build for its model's tokenizer; a declared non-standard workload has no rows to verify (it ranks only in its own
// pair, marked so).
#pragma once

#include <optional>
#include <string>

namespace openrecipes::checks {

struct RowsStatus {
  std::string status;                  ///< "not applicable (non-standard workload)", or why the rows are not verified
  std::optional<std::string> problem;  ///< the reason (stage "rows") when they are not verified
};

/// The rows status of a recipe on the standard workload (`standard`) or a declared non-standard one. The registry
/// records no reference rows build yet, so a standard recipe's rows_sha256 cannot be checked: not verified.
RowsStatus rows_status(bool standard);

}  // namespace openrecipes::checks
