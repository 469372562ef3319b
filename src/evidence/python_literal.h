// A bounded parser for the Python literals slime and miles print in their log lines (`step N: {...}`,
// `perf N: {...}`): the repr of a dict of floats, ints, strings, bools and None (SPEC §2).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace openrecipes::evidence {

/// Parses one Python literal from the start of `text` (dict, list, tuple, str with '' or "" quotes and
/// backslash escapes, int, float incl. nan/inf, True/False/None, and numpy/torch scalar reprs such as
/// np.float64(1.5) or tensor(2.0)). Dicts become JSON objects (keys must be strings), tuples become arrays,
/// None becomes null, nan/inf become doubles. `consumed` receives the number of bytes read.
/// Throws std::invalid_argument with the byte offset on anything else, on a key given twice in one dict
/// (Python would keep the last silently; a log never prints that), on nesting deeper than 64, or on more
/// than 1 MiB of input. Callers turn that into an InputError naming the file and line.
nlohmann::json parse_python_literal(std::string_view text, std::size_t& consumed);

}  // namespace openrecipes::evidence
