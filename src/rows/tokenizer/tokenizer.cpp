// Tokenizer facade and the per-text encode pipeline (SPEC §1.3; upstream tokenizers 0.23.2
// TokenizerImpl::encode_single_sequence: extract_and_normalize, do_pre_tokenize, do_tokenize).
#include "rows/tokenizer/tokenizer.h"

#include <stdexcept>

#include "core/error.h"
#include "core/utf8.h"
#include "rows/tokenizer/pipeline.h"

namespace openrecipes::rows {
namespace {

// Per-thread working memory, reused across encode calls.
struct Scratch {
  std::string lossy;
  std::string normalized;
  std::vector<tok::Segment> raw_segments, norm_segments;
  std::vector<std::string_view> pieces;
  tok::PreTokenizeScratch pre;
};

void encode_pretokenized(const tok::Pipeline& p, std::string_view text, Scratch& s, std::vector<std::int32_t>& out) {
  s.pre.arena.clear();
  p.pre_tokenizer.run(text, s.pre, s.pieces);
  if (p.raw_bytes) {
    for (std::string_view piece : s.pieces) p.model->encode_raw_bytes(piece, out);
  } else {
    for (std::string_view piece : s.pieces) p.model->encode_word(piece, out);
  }
}

void encode_text(const tok::Pipeline& p, std::string_view piece, Scratch& s, std::vector<std::int32_t>& out) {
  std::string_view normalized = p.normalizer.empty() ? piece : p.normalizer.apply(piece, s.normalized);
  if (normalized.empty()) return;
  if (!p.added.has(true)) {
    encode_pretokenized(p, normalized, s, out);
    return;
  }
  s.norm_segments.clear();
  p.added.split(normalized, true, s.norm_segments);
  for (const tok::Segment& seg : s.norm_segments) {
    if (seg.id >= 0)
      out.push_back(seg.id);
    else if (seg.end > seg.begin)
      encode_pretokenized(p, normalized.substr(seg.begin, seg.end - seg.begin), s, out);
  }
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<tok::Pipeline> p) : p_(std::move(p)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::load(const std::filesystem::path& tokenizer_json) {
  return Tokenizer(tok::load_pipeline(tokenizer_json, tok::read_tokenizer_json(tokenizer_json)));
}

Tokenizer Tokenizer::load(const std::filesystem::path& tokenizer_json, std::string bytes, JsonParser parser) {
  return Tokenizer(tok::load_pipeline(tokenizer_json, std::move(bytes), parser == JsonParser::fast));
}

void Tokenizer::encode(std::string_view text, std::vector<std::int32_t>& out) const {
  thread_local Scratch s;
  const tok::Pipeline& p = *p_;
  std::string_view sv = text;
  if (!is_valid_utf8(text)) {
    s.lossy = lossy_utf8(text);
    sv = s.lossy;
  }
  if (sv.empty()) return;
  try {
    // Copy the segments: encode_text reuses the other segment vector only.
    s.raw_segments.clear();
    p.added.split(sv, false, s.raw_segments);
    for (std::size_t k = 0; k < s.raw_segments.size(); ++k) {
      const tok::Segment seg = s.raw_segments[k];
      if (seg.id >= 0)
        out.push_back(seg.id);
      else if (seg.end > seg.begin)
        encode_text(p, sv.substr(seg.begin, seg.end - seg.begin), s, out);
    }
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const InputError*>(&e)) throw;
    throw InputError(p.file, e.what(), "use a tokenizer.json that Hugging Face tokenizers can encode this text with");
  }
}

std::vector<std::int32_t> Tokenizer::encode(std::string_view text) const {
  std::vector<std::int32_t> out;
  encode(text, out);
  return out;
}

std::optional<std::int32_t> Tokenizer::token_to_id(std::string_view token) const {
  std::int32_t id = p_->added.token_to_id(token);
  if (id < 0) id = p_->model->token_to_id(token);
  if (id < 0) return std::nullopt;
  return id;
}

std::size_t Tokenizer::vocab_size() const { return p_->vocab_size; }

std::string Tokenizer::describe() const { return p_->description; }

}  // namespace openrecipes::rows
