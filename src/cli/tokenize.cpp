// `openrecipes tokenize`: ids for one text, or for every conversation of a JSONL/parquet file rendered with the
// model's chat template (SPEC §1.2–1.3), for debugging a rows build against another pipeline.
#include <iostream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/calendar.h"
#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "core/utf8.h"
#include "rows/rows_build.h"
#include "rows/source/source_reader.h"
#include "rows/tokenizer_bundle.h"

namespace openrecipes::cli {
namespace {
namespace fs = std::filesystem;

// tokenizer.encode(text), with an encoding error (a word over the limit, a normalizer that expands the text past
// its limit) naming `where`: the conversation or the input it came from.
std::vector<std::int32_t> encode_named(const rows::Tokenizer& tokenizer, std::string_view text,
                                       const std::string& where) {
  try {
    return tokenizer.encode(text);
  } catch (const InputError& e) {
    throw InputError(where, "cannot tokenize: " + e.problem(), e.fix());
  }
}

struct TokenizeOptions {
  std::string tokenizer, tokenizer_config, chat_template, text, text_file, conversations, date = "2026-01-01";
};

const bool registered_tokenize = register_command(
    {"tokenize", "Token ids of a text, or of conversations rendered with the chat template (JSONL out)",
     [](CLI::App& app) {
       auto o = std::make_shared<TokenizeOptions>();
       app.add_option("--tokenizer", o->tokenizer, "Folder with tokenizer.json")->required();
       app.add_option("--tokenizer-config", o->tokenizer_config, "tokenizer_config.json, when not in the folder");
       app.add_option("--chat-template", o->chat_template, "Chat template file");
       auto* t = app.add_option("--text", o->text, "A text to encode (add_special_tokens=false)");
       auto* f = app.add_option("--text-file", o->text_file, "A file whose bytes to encode");
       auto* c = app.add_option("--conversations", o->conversations,
                                "JSONL or parquet of conversations ({\"messages\": [{\"role\", \"content\"}]})");
       t->excludes(f)->excludes(c);
       f->excludes(c);
       app.add_option("--date", o->date, "The date strftime_now() gives templates")->capture_default_str();
       return [o]() -> int {
         if (!is_calendar_date(o->date))
           throw InputError("--date", quote_for_message(o->date) + " is not a calendar date YYYY-MM-DD",
                            "give the date strftime_now() should return, e.g. 2026-01-01");
         rows::TokenizerFiles files{o->tokenizer, std::nullopt, std::nullopt};
         if (!o->conversations.empty()) {
           if (!o->tokenizer_config.empty()) files.tokenizer_config = fs::path(o->tokenizer_config);
           if (!o->chat_template.empty()) files.chat_template = fs::path(o->chat_template);
           auto bundle = rows::TokenizerBundle::load(files);
           for (const auto& w : bundle.warnings) std::cerr << "openrecipes: warning: " << w << "\n";
           auto set = rows::SourceSet::open({o->conversations}, 1);
           rows::RenderOptions ro;
           ro.today = o->date;
           set.read_each([&](std::uint64_t index, rows::ConversationView conv) {
             std::string text = bundle.render(conv, ro);
             auto ids =
                 encode_named(bundle.tokenizer(), text, fmt::format("{}: conversation {}", o->conversations, index));
             std::cout << nlohmann::json{{"index", index}, {"rendered", text}, {"input_ids", ids}}.dump() << "\n";
           });
           return 0;
         }
         std::string text;
         if (!o->text_file.empty())
           text = read_file(o->text_file);
         else
           text = o->text;
         // Hugging Face tokenizers decode lossily: each invalid byte becomes U+FFFD before encoding. Keep those ids
         // (they match the reference), but say so: rows build refuses the same bytes in a conversation.
         if (auto bad = find_invalid_utf8(text); bad != std::string_view::npos)
           std::cerr << "openrecipes: warning: " << (o->text_file.empty() ? std::string("--text") : o->text_file)
                     << ": not valid UTF-8 at " << describe_invalid_utf8(text, bad)
                     << "; invalid bytes were encoded as U+FFFD (the replacement character), as the tokenizers "
                        "library's lossy decoding does. rows build refuses such bytes in a conversation.\n";
         auto tok = rows::Tokenizer::load(fs::path(o->tokenizer) / "tokenizer.json");
         std::cout << nlohmann::json(encode_named(tok, text, o->text_file.empty() ? "--text" : o->text_file)).dump()
                   << "\n";
         return 0;
       };
     }});

}  // namespace
}  // namespace openrecipes::cli
