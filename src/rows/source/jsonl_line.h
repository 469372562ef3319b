// One JSONL source row (SPEC §1.1: {"messages": [{"role", "content"}, ...], other keys ignored}): the reference
// parser (nlohmann, every error worded) and the fast path the rows build tries first (simdjson), plus the bounds on
// a conversation that every source format checks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "core/error.h"
#include "rows/source/conversation.h"
#include "rows/source/source_reader.h"

namespace openrecipes::rows {

/// Throws InputError(where(), ...) when message k's content is over kMaxMessageBytes or its role over kMaxRoleBytes;
/// `where` is only called to word a broken bound.
template <typename Where>
void check_message_sizes(const Where& where, std::size_t k, std::string_view role, std::string_view content) {
  if (content.size() > kMaxMessageBytes) [[unlikely]]
    throw InputError(where(),
                     fmt::format("messages[{}].content is {} bytes, over the limit of {} bytes", k, content.size(),
                                 kMaxMessageBytes),
                     "drop or split that conversation");
  if (role.size() > kMaxRoleBytes) [[unlikely]]
    throw InputError(
        where(),
        fmt::format("messages[{}].role is {} bytes, over the limit of {} bytes", k, role.size(), kMaxRoleBytes),
        "roles are short names such as user, assistant, system");
}

/// Throws InputError(where(), ...) when a conversation has more than kMaxMessagesPerConversation messages.
template <typename Where>
void check_message_count(const Where& where, std::uint64_t count) {
  if (count > kMaxMessagesPerConversation) [[unlikely]]
    throw InputError(
        where(),
        fmt::format("the conversation has {} messages, over the limit of {}", count, kMaxMessagesPerConversation),
        "drop or split that conversation");
}

/// Parses one JSONL line (without its line feed) into (role, content) pairs, checking it whole: valid UTF-8 (else the
/// byte is named), valid JSON nested at most kMaxJsonDepth levels, an object with a `messages` list of objects of
/// exactly the string fields role and content, within the bounds above. Throws InputError naming `where` (the file
/// and line) and the fix.
void parse_jsonl_line(const std::string& where, std::string_view line,
                      std::vector<std::pair<std::string, std::string>>& owned);

/// The fast path of parse_jsonl_line (simdjson's DOM parser, which validates the whole line: UTF-8, escapes,
/// surrogates, raw control bytes in strings). One per thread.
class JsonlLineParser {
 public:
  JsonlLineParser();
  /// The line's messages as views into this parser's strings, valid until its next parse; or false at anything the
  /// fast path does not expect (invalid JSON, a key given twice, nesting past 8 levels, a message that is not exactly
  /// {role, content} strings), and parse_jsonl_line decides. Bounds are not checked: the caller checks them
  /// (check_message_count, check_message_sizes) on what it returns. When it returns true, those checks give the
  /// verdict parse_jsonl_line gives, word for word, and the same messages (tests/rows/source/jsonl_line_test.cpp and
  /// fuzz/jsonl_line.cpp pin this); simdjson decides speed, never what is accepted. `line` must be followed by
  /// simdjson::SIMDJSON_PADDING readable bytes.
  bool parse_fast(std::string_view line, std::vector<MessageView>& out);

 private:
  simdjson::dom::parser parser_;
};

}  // namespace openrecipes::rows
