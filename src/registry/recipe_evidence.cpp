// A recipe's evidence read once (registry/recipe_evidence.h).
#include "registry/recipe_evidence.h"

#include <fmt/format.h>

#include "checks/convergence.h"
#include "core/error.h"
#include "core/files.h"
#include "core/protocol.h"
#include "core/sha256.h"
#include "evidence/step_log.h"
#include "registry/evidence_origin.h"

namespace openrecipes::registry {
namespace {

// An evidence file's text, each file read once: `read(file)` returns it (read now, or the text already held for the
// step log, which usually holds the argument dump and is the convergence arm too). Throws InputError as read_file.
class EvidenceTexts {
 public:
  explicit EvidenceTexts(const Recipe& r) : log_path_(r.log.path) {
    try {
      log_ = read_file(r.log.path);
    } catch (const InputError& e) {
      log_error_ = e;
    }
  }
  const std::string& read(const std::filesystem::path& path) {
    if (path != log_path_) return other_ = read_file(path);
    if (log_error_) throw *log_error_;
    return log_;
  }

 private:
  std::filesystem::path log_path_;
  std::string log_, other_;
  std::optional<InputError> log_error_;
};

void load_arm(const Recipe& r, std::optional<std::int64_t> interval, EvidenceTexts& texts, RecipeEvidence& out) {
  try {
    if (r.convergence_arm) {
      out.arm_file = r.convergence_arm->relative;
      const std::string& text = texts.read(r.convergence_arm->path);
      out.arm_sha256 = sha256_hex(text);
      if (r.convergence_arm->path != r.log.path) {
        try {
          out.arm_args = evidence::parse_megatron_args(text, r.convergence_arm->relative);
        } catch (const InputError& e) {
          out.arm_args_error = e.what();
        }
      }
      // A separate arm is read with its own logging interval (its own dump's, else the gaps between its lines), as
      // `check convergence` reads it.
      std::optional<std::int64_t> arm_interval = interval;
      if (r.convergence_arm->path != r.log.path)
        arm_interval = out.arm_args ? evidence::log_interval_of(*out.arm_args) : std::nullopt;
      evidence::require_step_log_format(r.convergence_arm->format, r.convergence_arm->relative);
      // The arm that is the step log itself, read the same way, is the log already parsed.
      const bool is_the_log = r.convergence_arm->path == r.log.path && r.convergence_arm->format == r.log.format;
      auto arm = is_the_log && out.log ? *out.log
                                       : evidence::parse_step_log(text, r.convergence_arm->format, arm_interval,
                                                                  r.convergence_arm->relative);
      checks::require_arm_length(arm);
      if (r.convergence_arm->path != r.log.path) out.arm_fingerprint = steps_fingerprint(arm);
      out.arm = checks::loss_curve_from_log(arm);
    } else if (r.steps_per_run == protocol::kConvergenceSteps) {
      out.arm_file = r.log.relative;
      if (out.log) {
        out.arm_sha256 = sha256_hex(texts.read(r.log.path));
        out.arm = checks::loss_curve_from_log(*out.log);
      } else {
        out.arm_error = out.log_error;
      }
    } else {
      out.arm_error = fmt::format(
          "the measured run ran {} steps, so it is not a convergence arm (only a run of "
          "exactly {} steps is), and the recipe gives no separate {}-step arm "
          "(evidence.convergence_arm)",
          r.steps_per_run, protocol::kConvergenceSteps, protocol::kConvergenceSteps);
    }
  } catch (const InputError& e) {
    out.arm_error = e.what();
  }
}

}  // namespace

RecipeEvidence load_evidence(const Recipe& r) {
  RecipeEvidence out;
  EvidenceTexts texts(r);
  if (r.arguments) {
    try {
      out.args = evidence::parse_megatron_args(texts.read(r.arguments->path), r.arguments->relative);
    } catch (const InputError& e) {
      out.args_error = e.what();
      out.args_problem = e.where() + ": " + e.problem();
      out.args_fix = e.fix();
    }
  } else {
    out.args_error = out.args_problem = "the recipe gives no argument dump (evidence.arguments)";
  }
  std::optional<std::int64_t> interval;
  if (out.args) interval = evidence::log_interval_of(*out.args);
  if (r.log.format == "megatron") try {
      out.memory = evidence::parse_megatron_memory(texts.read(r.log.path), r.log.relative);
    } catch (const InputError&) {
      // a damaged memory line only leaves the measured peak off the page; the step log's checks report the file
    }
  try {
    evidence::require_step_log_format(r.log.format, r.log.relative);  // before reading, as read_step_log does
    out.log = evidence::parse_step_log(texts.read(r.log.path), r.log.format, interval, r.log.relative);
    out.log_fingerprint = steps_fingerprint(*out.log);
  } catch (const InputError& e) {
    out.log_error = e.what();
  }
  try {
    if (r.versions) out.versions = evidence::parse_versions(texts.read(r.versions->path), r.versions->relative);
    if (out.log) {  // the framework's own banners in the log join the versions dump
      auto banners = evidence::parse_version_banners(texts.read(r.log.path), r.log.relative);
      if (out.versions)
        out.versions->merge(banners);
      else if (!banners.versions.empty())
        out.versions = std::move(banners);
    }
  } catch (const InputError& e) {
    out.versions_error = e.what();
  }
  if (r.launch) {
    try {
      out.launch = evidence::parse_launch(read_file(r.launch->path, 16u << 20), r.launch->relative);
    } catch (const InputError& e) {
      out.launch_error = e.what();
    }
  }
  try {
    out.words = layout::split_command(r.command, "the published command");
    for (std::size_t i = 0; i < layout::assignment_count(out.words); ++i) {
      const auto& w = out.words[i];
      const std::string name = *layout::assignment_name(w);
      out.env[name] = r.command.substr(w.begin, w.end - w.begin).substr(name.size() + 1);
    }
  } catch (const InputError& e) {
    out.words_error = e;
  }
  load_arm(r, interval, texts, out);
  return out;
}

}  // namespace openrecipes::registry
