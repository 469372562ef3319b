// JSONL source rows (SPEC §1.1): the reference parser (nlohmann) and the simdjson fast path.
#include "rows/source/jsonl_line.h"

#include <new>

#include <nlohmann/json.hpp>

#include "core/json_limits.h"
#include "core/utf8.h"

namespace openrecipes::rows {

void parse_jsonl_line(const std::string& where, std::string_view line,
                      std::vector<std::pair<std::string, std::string>>& owned) {
  if (auto bad = find_invalid_utf8(line); bad != std::string_view::npos)
    throw InputError(where, "not valid UTF-8 at " + describe_invalid_utf8(line, bad),
                     "re-encode the file as UTF-8 (or fix that line)");
  // Nesting bounded: a line of a million '[' would otherwise cost memory for nothing.
  nlohmann::json row = parse_json_bounded(line, where, "each line must be one JSON object", kMaxJsonDepth);
  if (!row.is_object())
    throw InputError(where, std::string("the line is a JSON ") + row.type_name() + ", not an object",
                     "each line must be one JSON object with a `messages` list");
  auto it = row.find("messages");
  if (it == row.end())
    throw InputError(where, "no `messages` key",
                     "each line needs \"messages\": [{\"role\": ..., \"content\": ...}, ...]");
  if (it->is_null()) throw InputError(where, "messages is null", "drop the row or give it a list of messages");
  if (!it->is_array())
    throw InputError(where, std::string("messages is a JSON ") + it->type_name() + ", expected a list",
                     "messages must be a list of {\"role\", \"content\"} objects");
  const auto where_fn = [&] { return where; };
  check_message_count(where_fn, it->size());
  owned.clear();
  std::size_t k = 0;
  for (auto& m : *it) {
    if (m.is_null()) throw InputError(where, fmt::format("messages[{}] is null", k), "drop the null message");
    if (!m.is_object())
      throw InputError(where, fmt::format("messages[{}] is a JSON {}, expected an object", k, m.type_name()),
                       "each message is {\"role\": ..., \"content\": ...}");
    for (auto f = m.begin(); f != m.end(); ++f)
      if (f.key() != "role" && f.key() != "content")
        throw InputError(where,
                         fmt::format("messages[{}] has a field `{}`; only content and role are read", k, f.key()),
                         "give messages of exactly {content, role}, or render that field into content");
    for (const char* field : {"role", "content"}) {
      auto v = m.find(field);
      if (v == m.end() || v->is_null())
        throw InputError(where, fmt::format("messages[{}].{} is {}", k, field, v == m.end() ? "missing" : "null"),
                         std::string(field) == "role" ? "give every message a role (user, assistant, system, ...)"
                                                      : "give every message a string content (\"\" for an empty one)");
      if (!v->is_string())
        throw InputError(where,
                         fmt::format("messages[{}].{} is a JSON {}, expected a string", k, field, v->type_name()),
                         "content and role are strings");
    }
    owned.emplace_back(std::move(m["role"].get_ref<std::string&>()), std::move(m["content"].get_ref<std::string&>()));
    check_message_sizes(where_fn, k, owned.back().first, owned.back().second);
    ++k;
  }
}

JsonlLineParser::JsonlLineParser() {
  // Lines nested past 8 levels are left to the slow path; no error is possible here but memory.
  if (parser_.allocate(1u << 20, 8)) throw std::bad_alloc();
}

bool JsonlLineParser::parse_fast(std::string_view line, std::vector<MessageView>& out) {
  simdjson::dom::element doc;
  simdjson::dom::object row;
  if (parser_.parse(line.data(), line.size(), false).get(doc) || doc.get_object().get(row)) return false;
  simdjson::dom::array messages;
  int seen = 0;
  for (auto [key, value] : row)
    if (key == "messages" && (++seen > 1 || value.get_array().get(messages))) return false;
  if (seen != 1) return false;
  out.clear();
  for (simdjson::dom::element m : messages) {
    simdjson::dom::object message;
    if (m.get_object().get(message)) return false;
    MessageView v;
    int fields = 0, role = 0, content = 0;
    for (auto [key, value] : message) {
      ++fields;
      std::string_view* slot = key == "role" ? (++role, &v.role) : key == "content" ? (++content, &v.content) : nullptr;
      if (!slot || value.get_string().get(*slot)) return false;
    }
    if (fields != 2 || role != 1 || content != 1) return false;
    out.push_back(v);
  }
  return true;
}

}  // namespace openrecipes::rows
