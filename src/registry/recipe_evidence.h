// A recipe's evidence read once (SPEC §2, §5): the step log, the argument dump, the versions, the launch, the
// convergence arm and the command's words, each parsed or with why it could not be, for the evaluation's stages
// (registry/evaluate.h) to read. A reference's evidence is read once and serves every recipe that names it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/convergence.h"
#include "core/error.h"
#include "core/step_record.h"
#include "evidence/launch.h"
#include "evidence/megatron_args.h"
#include "evidence/megatron_memory.h"
#include "evidence/versions.h"
#include "layout/command.h"
#include "registry/recipe.h"

namespace openrecipes::registry {

/// What a recipe's evidence gives; a piece that could not be read holds its error instead.
struct RecipeEvidence {
  std::optional<evidence::ArgumentDump> args;
  std::string args_error;
  std::string args_problem, args_fix;  ///< args_error in parts: "where: problem" and the fix ("" for none)
  std::optional<StepLog> log;
  std::string log_error;
  /// The step log's run (registry::steps_fingerprint; "" when it could not be read), and a separate convergence arm's
  /// (evidence.convergence_arm in a file of its own): what tells one run published twice.
  std::string log_fingerprint, arm_fingerprint;
  std::optional<evidence::VersionDump> versions;  ///< the versions dump merged with the log's framework banners
  std::string versions_error;
  std::optional<evidence::Launch> launch;
  std::string launch_error;
  std::optional<checks::LossCurve> arm;  ///< the 20-step convergence arm
  std::string arm_error;
  std::string arm_sha256;  ///< sha256 of the arm's file bytes (empty when it could not be read)
  std::string arm_file;    ///< the arm's path as the recipe writes it
  /// The argument dump of a separate arm file (evidence.convergence_arm other than the measured log).
  std::optional<evidence::ArgumentDump> arm_args;
  std::string arm_args_error;
  /// Megatron's memory lines in the step log (megatron format), for the planner's predicted-against-measured peak.
  std::optional<evidence::MemoryReport> memory;
  /// The recipe's command as words (split once: the command check and the configuration check read it), the
  /// environment it sets (NAME -> value as written), or why it does not split.
  std::vector<layout::CommandWord> words;
  std::map<std::string, std::string> env;
  std::optional<InputError> words_error;
};

/// Reads and parses every evidence file of `r` once (a file that is both the step log and the argument dump is read
/// once). Never throws: what does not read is kept as its error, for the stage that needs it to report.
RecipeEvidence load_evidence(const Recipe& r);

}  // namespace openrecipes::registry
