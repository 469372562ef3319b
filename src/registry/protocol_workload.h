// The protocol's workload as the tool knows it (PROTOCOL.md "Workload"; SPEC §1, §5): the dataset, its pinned
// revision and the files of that revision a standard rows build reads, from registry/rules/workload.yaml (compiled in:
// a registry or recipe folder never brings its own). L and B are core/protocol.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/protocol.h"
#include "rows/output/manifest.h"

namespace openrecipes::registry {

/// One file of the dataset at its revision.
struct ProtocolSource {
  std::string name;                   ///< the file's name, as a rows build's manifest records it
  std::optional<std::string> sha256;  ///< its sha256 (Git LFS oid); nullopt while no maintainer has recorded it
};

struct ProtocolWorkload {
  std::string dataset;   ///< "allenai/tulu-3-sft-mixture"
  std::string revision;  ///< 40 hex digits
  std::vector<ProtocolSource> sources;
  std::int64_t row_length = protocol::kRowLength;      ///< L (core/protocol.h; not in the file)
  std::int64_t global_batch = protocol::kGlobalBatch;  ///< B, rows a step (core/protocol.h; not in the file)
  std::string file;  ///< where it was read from, for messages: "registry/rules/workload.yaml"
};

/// Parses workload.yaml's format from `text` (`file` names it in messages). Throws InputError (file:line: field) for
/// malformed YAML, an unknown or missing field, a revision that is not 40 hex digits, a source name that is not a plain
/// file name or is listed twice, and a sha256 that is neither null nor 64 lower-case hex digits.
ProtocolWorkload parse_protocol_workload(std::string_view text, const std::string& file);

/// The compiled-in registry/rules/workload.yaml.
const ProtocolWorkload& protocol_workload();

/// Why a rows build (its manifest) is not the protocol's standard workload, one sentence each (both values named): its
/// dataset or revision is another; its row length is not the protocol's L; its sources are not exactly
/// the protocol's files (a name missing, an extra name, a sha256 that differs); or the protocol's sha256 of a file is
/// not recorded yet, so the build cannot be checked. Empty when it is the protocol's.
std::vector<std::string> protocol_build_problems(const rows::RowsManifest& manifest,
                                                 const ProtocolWorkload& protocol = protocol_workload());

}  // namespace openrecipes::registry
