// Loads tokenizer.json into a tokenizer Pipeline, validating every field read (SPEC §1.3; upstream
// tokenizers 0.23.2 serialization of Tokenizer, BPE, normalizers, pre-tokenizers and added tokens). Anything
// malformed or unsupported is an InputError naming the file, the JSON path and the fix.
#include <climits>
#include <optional>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <simdjson.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "core/text.h"
#include "rows/tokenizer/pipeline.h"
#include "rows/tokenizer/split_scanners.h"
#include "rows/tokenizer/tokenizer.h"

namespace openrecipes::rows::tok {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxVocab = 1u << 24;  // 16.7M tokens
constexpr std::size_t kMaxMerges = 1u << 24;
constexpr std::size_t kMaxAddedTokens = 1u << 20;
constexpr std::size_t kMaxTokenBytes = 1u << 16;
constexpr std::size_t kMaxPatternBytes = 1u << 16;
constexpr std::size_t kMaxSteps = 256;  // normalizer / pre-tokenizer steps after flattening
constexpr int kMaxDepth = 16;           // Sequence nesting

// model.vocab and model.merges as views into the parsed document (simdjson's string buffer or the nlohmann tree),
// valid while the load runs.
struct BpeTables {
  std::vector<std::pair<std::string_view, std::int32_t>> vocab;
  std::vector<std::pair<std::string_view, std::string_view>> merges;
};

// A merge written as one string "left right": the two tokens, or nothing unless there is exactly one space.
std::optional<std::pair<std::string_view, std::string_view>> split_merge(std::string_view s) {
  const std::size_t sp = s.find(' ');
  if (sp == std::string_view::npos || s.find(' ', sp + 1) != std::string_view::npos) return std::nullopt;
  return std::pair{s.substr(0, sp), s.substr(sp + 1)};
}

// The fast path (simdjson's DOM parser: the fastest kernel for this CPU, picked at run time): reads model.vocab and
// model.merges into `tables` as views into the parser's strings, and every other field into `root` through nlohmann
// (re-serialized by simdjson, so the Loader checks them exactly as on the slow path). Returns false at the first
// thing it does not expect (invalid JSON, a key of the top level or of "model" given twice, a vocab id that is not
// an int32, a merge of another shape, a limit passed): the caller then parses the whole file with nlohmann, which
// accepts the same files and words every error. simdjson decides speed, never what is accepted.
bool parse_fast(simdjson::dom::parser& parser, simdjson::padded_string_view text, json& root, BpeTables& tables) {
  simdjson::dom::element doc;
  simdjson::dom::object top;
  if (parser.parse(text).get(doc) || doc.get_object().get(top)) return false;
  // A subtree, written out by simdjson and read by nlohmann.
  auto as_json = [](simdjson::dom::element v, json& out) {
    try {
      out = parse_json_bounded(simdjson::minify(v), "tokenizer.json", "", 128);
      return true;
    } catch (const InputError&) {
      return false;
    }
  };
  auto read_vocab = [&](simdjson::dom::element v) {
    simdjson::dom::object o;
    if (v.get_object().get(o) || o.size() > kMaxVocab) return false;
    tables.vocab.reserve(o.size());
    for (auto [token, value] : o) {
      std::int64_t id;
      if (value.get_int64().get(id) || id < 0 || id > INT32_MAX || token.size() > kMaxTokenBytes) return false;
      tables.vocab.emplace_back(token, static_cast<std::int32_t>(id));
    }
    return true;
  };
  auto read_merges = [&](simdjson::dom::element v) {
    simdjson::dom::array a;
    if (v.get_array().get(a) || a.size() > kMaxMerges) return false;
    tables.merges.reserve(a.size());
    const bool pairs = a.size() > 0 && a.at(0).is_array();  // the first merge decides the form, as upstream
    for (simdjson::dom::element e : a) {
      if (pairs) {
        simdjson::dom::array pair;
        std::string_view left, right;
        if (e.get_array().get(pair) || pair.size() != 2 || pair.at(0).get_string().get(left) ||
            pair.at(1).get_string().get(right))
          return false;
        tables.merges.emplace_back(left, right);
      } else {
        std::string_view s;
        if (e.get_string().get(s)) return false;
        auto split = split_merge(s);
        if (!split) return false;
        tables.merges.push_back(*split);
      }
    }
    return true;
  };
  root = json::object();
  for (auto [key, value] : top) {
    if (root.contains(key)) return false;
    if (key != "model") {
      if (!as_json(value, root[std::string(key)])) return false;
      continue;
    }
    simdjson::dom::object model;
    if (value.get_object().get(model)) return false;
    json& m = root["model"] = json::object();
    bool vocab = false, merges = false;
    for (auto [mkey, mv] : model) {
      if (m.contains(mkey) || (mkey == "vocab" && vocab) || (mkey == "merges" && merges)) return false;
      if (mkey == "vocab") {
        if (!read_vocab(mv)) return false;
        vocab = true;
      } else if (mkey == "merges") {
        if (!read_merges(mv)) return false;
        merges = true;
      } else if (!as_json(mv, m[std::string(mkey)])) {
        return false;
      }
    }
    if (!vocab || !merges) return false;
  }
  return true;
}

class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what, const std::string& fix) const {
    throw InputError(path.empty() ? file_ : file_ + " at " + path, what, fix);
  }

  const json& member(const json& obj, const char* key, const std::string& path) const {
    auto it = obj.find(key);
    if (it == obj.end())
      fail(path, fmt::format("missing field \"{}\"", key), "use a tokenizer.json written by Hugging Face tokenizers");
    return *it;
  }
  const json* optional_member(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return (it == obj.end() || it->is_null()) ? nullptr : &*it;
  }
  std::string string_at(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "expected a string, found " + std::string(v.type_name()), "fix the field's value");
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() > kMaxTokenBytes && path.find("pattern") == std::string::npos)
      fail(path, fmt::format("string of {} bytes is longer than the limit of {}", s.size(), kMaxTokenBytes),
           "use a real tokenizer.json");
    return s;
  }
  bool bool_at(const json& v, const std::string& path) const {
    if (!v.is_boolean())
      fail(path, "expected true or false, found " + std::string(v.type_name()), "fix the field's value");
    return v.get<bool>();
  }
  bool bool_field(const json& obj, const char* key, const std::string& path) const {
    return bool_at(member(obj, key, path), path + "." + key);
  }
  bool bool_or(const json& obj, const char* key, bool dflt, const std::string& path) const {
    const json* v = optional_member(obj, key);
    return v ? bool_at(*v, path + "." + key) : dflt;
  }
  std::optional<std::string> optional_string(const json& obj, const char* key, const std::string& path) const {
    const json* v = optional_member(obj, key);
    if (!v) return std::nullopt;
    return string_at(*v, path + "." + key);
  }
  std::int32_t id_at(const json& v, const std::string& path) const {
    if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0))
      fail(path, "token id must be a non-negative integer, found " + v.dump(), "fix the id");
    std::uint64_t id = v.get<std::uint64_t>();
    if (id > static_cast<std::uint64_t>(INT32_MAX))
      fail(path, fmt::format("token id {} is out of range (at most {})", id, INT32_MAX), "fix the id");
    return static_cast<std::int32_t>(id);
  }
  std::string type_of(const json& obj, const std::string& path) const {
    if (!obj.is_object()) fail(path, "expected an object, found " + std::string(obj.type_name()), "fix the field");
    return string_at(member(obj, "type", path), path + ".type");
  }

  // A Split / Replace pattern: {"String": s} or {"Regex": r}.
  struct PatternSpec {
    bool is_regex = false;
    std::string text;
  };
  PatternSpec pattern(const json& obj, const std::string& path) const {
    const json& p = member(obj, "pattern", path);
    const std::string pp = path + ".pattern";
    if (!p.is_object() || p.size() != 1) fail(pp, "expected {\"String\": ...} or {\"Regex\": ...}", "fix the pattern");
    PatternSpec spec;
    if (p.contains("String")) {
      spec.text = string_at(p["String"], pp + ".String");
    } else if (p.contains("Regex")) {
      spec.is_regex = true;
      spec.text = string_at(p["Regex"], pp + ".Regex");
    } else {
      fail(pp, "expected {\"String\": ...} or {\"Regex\": ...}", "fix the pattern");
    }
    if (spec.text.size() > kMaxPatternBytes)
      fail(pp, fmt::format("pattern of {} bytes is longer than the limit of {}", spec.text.size(), kMaxPatternBytes),
           "use a real tokenizer.json");
    return spec;
  }
  std::shared_ptr<OnigRegex> compile(const std::string& pattern, const std::string& path) const {
    std::string error;
    std::unique_ptr<OnigRegex> re = OnigRegex::compile(pattern, error);
    if (!re) fail(path, "regex does not compile (Oniguruma: " + error + ")", "fix the pattern");
    return std::shared_ptr<OnigRegex>(std::move(re));
  }

  void normalizer(const json& n, const std::string& path, int depth, std::vector<NormalizerStep>& steps) const {
    if (depth > kMaxDepth)
      fail(path, fmt::format("Sequence nested more than {} levels deep", kMaxDepth), "flatten the normalizer");
    const std::string type = type_of(n, path);
    NormalizerStep st;
    if (const auto form = value_named(kNormFormNames, type)) {
      st.kind = NormalizerStep::Kind::unicode;
      st.form = *form;
    } else if (type == "Sequence") {
      const json& list = member(n, "normalizers", path);
      if (!list.is_array()) fail(path + ".normalizers", "expected an array", "fix the Sequence");
      for (std::size_t i = 0; i < list.size(); ++i)
        normalizer(list[i], fmt::format("{}.normalizers[{}]", path, i), depth + 1, steps);
      return;
    } else if (type == "Lowercase") {
      st.kind = NormalizerStep::Kind::lowercase;
    } else if (type == "Replace") {
      st.kind = NormalizerStep::Kind::replace;
      PatternSpec spec = pattern(n, path);
      if (spec.is_regex || spec.text.empty())
        st.regex = compile(spec.is_regex ? spec.text : std::string(), path + ".pattern");
      else
        st.literal = spec.text;
      st.content = string_at(member(n, "content", path), path + ".content");
    } else if (type == "Prepend") {
      st.kind = NormalizerStep::Kind::prepend;
      st.content = string_at(member(n, "prepend", path), path + ".prepend");
    } else if (type == "Strip") {
      st.kind = NormalizerStep::Kind::strip;
      st.strip_left = bool_field(n, "strip_left", path);
      st.strip_right = bool_field(n, "strip_right", path);
    } else {
      fail(path + ".type", "unsupported normalizer type \"" + type + "\"",
           "OpenRecipes supports NFC, NFD, NFKC, NFKD, Lowercase, Replace, Prepend, Strip and Sequence");
    }
    if (steps.size() >= kMaxSteps)
      fail(path, fmt::format("more than the limit of {} normalizer steps", kMaxSteps), "use a real tokenizer.json");
    steps.push_back(std::move(st));
  }

  void pre_tokenizer(const json& n, const std::string& path, int depth, std::vector<PreTokenizerStep>& steps) const {
    if (depth > kMaxDepth)
      fail(path, fmt::format("Sequence nested more than {} levels deep", kMaxDepth), "flatten the pre-tokenizer");
    const std::string type = type_of(n, path);
    PreTokenizerStep st;
    if (type == "Sequence") {
      const json& list = member(n, "pretokenizers", path);
      if (!list.is_array()) fail(path + ".pretokenizers", "expected an array", "fix the Sequence");
      for (std::size_t i = 0; i < list.size(); ++i)
        pre_tokenizer(list[i], fmt::format("{}.pretokenizers[{}]", path, i), depth + 1, steps);
      return;
    } else if (type == "Split") {
      st.kind = PreTokenizerStep::Kind::split;
      PatternSpec spec = pattern(n, path);
      if (spec.is_regex) {
        st.scanner = recognize_scanner(spec.text);
        if (st.scanner == Scanner::none) st.regex = compile(spec.text, path + ".pattern.Regex");
      } else if (spec.text.empty()) {
        st.regex = compile(std::string(), path + ".pattern.String");
      } else {
        st.is_literal = true;
        st.literal = spec.text;
      }
      const std::string b = string_at(member(n, "behavior", path), path + ".behavior");
      if (b == "Removed")
        st.behavior = SplitBehavior::removed;
      else if (b == "Isolated")
        st.behavior = SplitBehavior::isolated;
      else if (b == "MergedWithPrevious")
        st.behavior = SplitBehavior::merged_with_previous;
      else if (b == "MergedWithNext")
        st.behavior = SplitBehavior::merged_with_next;
      else if (b == "Contiguous")
        st.behavior = SplitBehavior::contiguous;
      else
        fail(path + ".behavior", "unknown split behavior \"" + b + "\"",
             "use Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
      st.invert = bool_field(n, "invert", path);
    } else if (type == "ByteLevel") {
      st.kind = PreTokenizerStep::Kind::byte_level;
      st.add_prefix_space = bool_field(n, "add_prefix_space", path);
      st.use_regex = bool_or(n, "use_regex", true, path);
    } else if (type == "Digits") {
      st.kind = PreTokenizerStep::Kind::digits;
      st.individual_digits = bool_field(n, "individual_digits", path);
    } else {
      fail(path + ".type", "unsupported pre-tokenizer type \"" + type + "\"",
           "OpenRecipes supports Split, ByteLevel, Digits and Sequence");
    }
    if (steps.size() >= kMaxSteps)
      fail(path, fmt::format("more than the limit of {} pre-tokenizer steps", kMaxSteps), "use a real tokenizer.json");
    steps.push_back(std::move(st));
  }

  // model.vocab and model.merges of the nlohmann tree, checked, as views into its strings.
  BpeTables tables(const json& m) const {
    const std::string path = "model";
    BpeTables t;
    const json& v = member(m, "vocab", path);
    if (!v.is_object()) fail("model.vocab", "expected an object mapping token -> id", "fix model.vocab");
    if (v.size() > kMaxVocab)
      fail("model.vocab", fmt::format("{} tokens is more than the limit of {}", v.size(), kMaxVocab),
           "use a real tokenizer.json");
    t.vocab.reserve(v.size());
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it.key().size() > kMaxTokenBytes)
        fail("model.vocab", "a token is longer than 64 KiB", "use a real tokenizer.json");
      t.vocab.emplace_back(it.key(), id_at(it.value(), "model.vocab[" + quote_for_message(it.key()) + "]"));
    }

    const json& ms = member(m, "merges", path);
    if (!ms.is_array()) fail("model.merges", "expected an array", "fix model.merges");
    if (ms.size() > kMaxMerges)
      fail("model.merges", fmt::format("{} merges is more than the limit of {}", ms.size(), kMaxMerges),
           "use a real tokenizer.json");
    t.merges.reserve(ms.size());
    const bool pairs = !ms.empty() && ms[0].is_array();
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const json& e = ms[i];
      const std::string ep = fmt::format("model.merges[{}]", i);
      if (pairs) {
        if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_string())
          fail(ep, "expected a pair [\"left\", \"right\"] like the other merges", "fix the merge");
        t.merges.emplace_back(e[0].get_ref<const std::string&>(), e[1].get_ref<const std::string&>());
      } else {
        if (!e.is_string()) fail(ep, "expected a string \"left right\" like the other merges", "fix the merge");
        const std::string& s = e.get_ref<const std::string&>();
        auto split = split_merge(s);
        if (!split)
          fail(ep, "merge " + quote_for_message(s) + " is not two tokens separated by one space", "fix the merge");
        t.merges.push_back(*split);
      }
    }
    return t;
  }

  // The BPE model from tokenizer.json's "model" object; `fast` holds its vocab and merges when the simdjson path
  // read them (then `m` has neither), else they are read from `m`.
  std::unique_ptr<BpeModel> model(const json& m, const BpeTables* fast) const {
    const std::string path = "model";
    if (!m.is_object()) fail(path, "expected an object", "use a tokenizer.json with a BPE model");
    if (const json* t = optional_member(m, "type")) {
      std::string type = string_at(*t, "model.type");
      if (type != "BPE")
        fail("model.type", "unsupported model type \"" + type + "\"",
             "OpenRecipes supports BPE models only (WordPiece, WordLevel and Unigram are not implemented)");
    }
    if (const json* d = optional_member(m, "dropout")) {
      if (!d->is_number() || d->get<double>() != 0.0)
        fail("model.dropout", "dropout " + d->dump() + " makes encoding random",
             "set model.dropout to null: rows must be reproducible");
    }
    BpeSettings settings;
    settings.unk_token = optional_string(m, "unk_token", path);
    settings.continuing_subword_prefix = optional_string(m, "continuing_subword_prefix", path);
    settings.end_of_word_suffix = optional_string(m, "end_of_word_suffix", path);
    settings.fuse_unk = bool_or(m, "fuse_unk", false, path);
    settings.byte_fallback = bool_or(m, "byte_fallback", false, path);
    settings.ignore_merges = bool_or(m, "ignore_merges", false, path);

    BpeTables own;
    if (!fast) own = tables(m);
    const BpeTables& t = fast ? *fast : own;
    try {
      return std::make_unique<BpeModel>(t.vocab, t.merges, std::move(settings));
    } catch (const std::invalid_argument& e) {
      fail("model." + std::string(e.what()).substr(0, std::string(e.what()).find(':')),
           std::string(e.what()).substr(std::string(e.what()).find(':') + 2),
           "every merge must name two tokens of model.vocab whose concatenation is in model.vocab");
    }
  }

  std::vector<AddedToken> added_tokens(const json& list) const {
    if (!list.is_array()) fail("added_tokens", "expected an array", "fix added_tokens");
    if (list.size() > kMaxAddedTokens)
      fail("added_tokens", fmt::format("{} added tokens is more than the limit of {}", list.size(), kMaxAddedTokens),
           "use a real tokenizer.json");
    std::vector<AddedToken> out;
    out.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string p = fmt::format("added_tokens[{}]", i);
      const json& t = list[i];
      if (!t.is_object()) fail(p, "expected an object", "fix the added token");
      id_at(member(t, "id", p), p + ".id");  // validated; upstream assigns ids itself (see AddedVocabulary)
      AddedToken a;
      a.content = string_at(member(t, "content", p), p + ".content");
      a.single_word = bool_field(t, "single_word", p);
      a.lstrip = bool_field(t, "lstrip", p);
      a.rstrip = bool_field(t, "rstrip", p);
      a.normalized = bool_field(t, "normalized", p);
      a.special = bool_field(t, "special", p);
      out.push_back(std::move(a));
    }
    return out;
  }

 private:
  std::string file_;
};

}  // namespace

std::string read_tokenizer_json(const std::filesystem::path& path) {
  return read_file(path, kMaxTokenizerJsonBytes, simdjson::SIMDJSON_PADDING);
}

std::unique_ptr<Pipeline> load_pipeline(const std::filesystem::path& path, std::string bytes, bool try_fast) {
  const std::string file = path.string();
  Loader L(file);
  if (bytes.size() > kMaxTokenizerJsonBytes)
    L.fail("", fmt::format("file is {} bytes, over the limit of {} bytes", bytes.size(), kMaxTokenizerJsonBytes),
           "use a real tokenizer.json");
  // Bound nesting before building any tree: nlohmann copies trees recursively (a 170k-deep file overflows the
  // stack), and no real tokenizer.json nests more than ~10 levels.
  check_json_depth(bytes, 128, file, "re-download tokenizer.json; no real tokenizer nests this deep");
  if (bytes.capacity() < bytes.size() + simdjson::SIMDJSON_PADDING)
    bytes.reserve(bytes.size() + simdjson::SIMDJSON_PADDING);
  const simdjson::padded_string_view text(bytes.data(), bytes.size(), bytes.capacity());
  json root;
  BpeTables fast_tables;
  simdjson::dom::parser parser;  // owns the strings fast_tables points to
  const bool fast = try_fast && parse_fast(parser, text, root, fast_tables);
  if (!fast) {
    fast_tables = BpeTables{};
    root = parse_json_bounded(bytes, file, "re-download tokenizer.json; the file is truncated or corrupt", 128);
  }
  if (!root.is_object()) L.fail("", "expected a JSON object at the top level", "use a Hugging Face tokenizer.json");
  if (const json* v = L.optional_member(root, "version")) {
    if (L.string_at(*v, "version") != "1.0")
      L.fail("version", "unknown tokenizer.json version " + v->dump(),
             "use a file written by tokenizers 0.x (version \"1.0\")");
  }
  if (L.optional_member(root, "truncation"))
    L.fail("truncation", "truncation is set: it would cut conversations and change their ids",
           "set \"truncation\": null in tokenizer.json");
  if (L.optional_member(root, "padding"))
    L.fail("padding", "padding is set: it would add pad tokens and change ids",
           "set \"padding\": null in tokenizer.json");

  auto p = std::make_unique<Pipeline>();
  p->file = file;
  const json* model = L.optional_member(root, "model");
  if (!model) L.fail("model", "missing field \"model\"", "use a Hugging Face tokenizer.json with a BPE model");
  p->model = L.model(*model, fast ? &fast_tables : nullptr);

  std::vector<NormalizerStep> nsteps;
  if (const json* n = L.optional_member(root, "normalizer")) L.normalizer(*n, "normalizer", 0, nsteps);
  p->normalizer = NormalizerChain(std::move(nsteps));

  std::vector<PreTokenizerStep> psteps;
  if (const json* n = L.optional_member(root, "pre_tokenizer")) L.pre_tokenizer(*n, "pre_tokenizer", 0, psteps);
  const bool virt = PreTokenizer::can_virtualize(psteps) && p->model->raw_bytes_supported();
  p->pre_tokenizer = PreTokenizer(std::move(psteps), virt);
  p->raw_bytes = p->pre_tokenizer.virtual_byte_level();

  std::vector<AddedToken> tokens;
  if (const json* a = L.optional_member(root, "added_tokens")) tokens = L.added_tokens(*a);
  try {
    const NormalizerChain& chain = p->normalizer;
    const BpeModel& bpe = *p->model;
    p->added.build(
        tokens, bpe.vocab_size(), [&](std::string_view t) { return bpe.token_to_id(t); },
        [&](std::string_view t) {
          std::string buf;
          return std::string(chain.apply(t, buf));
        });
  } catch (const std::invalid_argument& e) {
    L.fail("added_tokens", e.what(), "remove the duplicate or empty added token");
  }
  std::size_t extra = 0;
  p->added.for_each([&](std::string_view content, std::int32_t) {
    if (p->model->token_to_id(content) < 0) ++extra;
  });
  p->vocab_size = p->model->vocab_size() + extra;

  const BpeSettings& s = p->model->settings();
  std::string flags = p->raw_bytes ? "byte-level" : "chars";
  if (s.ignore_merges) flags += ", ignore_merges";
  if (s.byte_fallback) flags += ", byte_fallback";
  if (s.unk_token) flags += ", unk " + quote_for_message(*s.unk_token);
  p->description = fmt::format("BPE({}, {} tokens, {} merges) + {} added; normalizer: {}; pre-tokenizer: {}", flags,
                               p->model->vocab_size(), p->model->merges_size(), p->added.size(),
                               p->normalizer.describe(), p->pre_tokenizer.describe());
  return p;
}

}  // namespace openrecipes::rows::tok

namespace openrecipes::rows {
const std::size_t Tokenizer::kParsePadding = simdjson::SIMDJSON_PADDING;
}  // namespace openrecipes::rows
