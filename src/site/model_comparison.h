// The GPU-type comparison on a model's page (SPEC §5; docs/site.md): per workload, the best verified recipe of each GPU
// type as a table and two bar charts, and the scaling and value scatter charts. Internals of site/model_page.h, in
// site::parts.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace openrecipes::site::parts {

/// The comparison of workload `key` across `pairs` (the model's pairs of that workload, one per GPU type): every
/// verified row ("best" marks each pair's first), the best rows, and with two or more GPU types the speed and
/// $ per 1M tokens bar charts (SVG). Links are prefixed by `root`. Throws nlohmann::json exceptions on JSON of
/// another shape.
nlohmann::json comparison_view(const std::string& key, const std::vector<const nlohmann::json*>& pairs,
                               const std::string& root);

/// The scatter charts of workload `key` (tokens/s/GPU against GPU count, and against $ per 1M tokens, one series per
/// GPU type), or null when the workload has fewer than two verified recipes. The scaling chart is false on a single
/// GPU count ("gpu_count" and "plural" then name it).
nlohmann::json scatter_view(const std::string& key, const std::vector<const nlohmann::json*>& pairs);

}  // namespace openrecipes::site::parts
