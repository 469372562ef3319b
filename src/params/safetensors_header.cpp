// Safetensors header reader: length prefix, JSON table, offsets checked like upstream `read_metadata` (SPEC §3).
#include "params/safetensors_header.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <simdjson.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_limits.h"
#include "core/text.h"

namespace openrecipes::params {
namespace {
using nlohmann::json;

const char* kFix = "re-download the file; a safetensors header must describe every byte of the data region";

// Reads exactly n bytes at offset, or throws.
void read_at(int fd, char* out, std::uint64_t n, std::uint64_t offset, const std::string& where) {
  while (n > 0) {
    ssize_t got = ::pread(fd, out, n, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(where, std::string("cannot read: ") + std::strerror(errno));
    }
    if (got == 0) throw InputError(where, "file ended while reading the header (file changed while reading?)");
    out += got;
    n -= static_cast<std::uint64_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string tensor_where(const std::string& where, const std::string& name) {
  return where + ": tensor " + quote_for_message(name, 200);
}

// One header entry as the SAX handler collects it, before validation.
struct RawEntry {
  std::string name;
  std::string dtype;
  bool has_dtype = false, has_shape = false, has_offsets = false;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint64_t> offsets;
};

// Streams the header JSON (nlohmann's SAX interface: no document tree, one allocation per tensor name) into RawEntry
// records and `__metadata__` pairs. Structure errors stop the parse with a message naming the tensor.
class HeaderSax : public nlohmann::json_sax<json> {
 public:
  explicit HeaderSax(std::string where) : where_(std::move(where)) {}
  std::vector<RawEntry> entries;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::string error_where, error_what;  // set when a handler returned false
  std::size_t error_byte = 0;
  bool syntax_error = false;

  bool null() override { return bad_value("null"); }
  bool boolean(bool v) override { return bad_value(v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return bad_value(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    if (state_ == State::shape) {
      entries.back().shape.push_back(v);
      return true;
    }
    if (state_ == State::offsets) {
      entries.back().offsets.push_back(v);
      return true;
    }
    return bad_value(std::to_string(v));
  }
  bool number_float(number_float_t, const string_t& text) override { return bad_value(text); }
  bool binary(binary_t&) override { return bad_value("binary"); }
  bool string(string_t& v) override {
    if (state_ == State::dtype) {
      entries.back().dtype = std::move(v);
      state_ = State::entry;
      return true;
    }
    if (state_ == State::metadata_value) {
      metadata.back().second = std::move(v);
      state_ = State::metadata;
      return true;
    }
    return bad_value(json(v).dump());
  }
  bool start_object(std::size_t) override {
    switch (state_) {
      case State::start:
        state_ = State::root;
        return true;
      case State::entry_value:
        state_ = State::entry;
        return true;
      case State::metadata_start:
        state_ = State::metadata;
        return true;
      default:
        return bad_value("an object");
    }
  }
  bool key(string_t& k) override {
    switch (state_) {
      case State::root:
        if (k == "__metadata__") {
          state_ = State::metadata_start;
          return true;
        }
        entries.emplace_back();
        entries.back().name = std::move(k);
        state_ = State::entry_value;
        return true;
      case State::entry: {
        RawEntry& e = entries.back();
        bool* seen = k == "dtype"          ? &e.has_dtype
                     : k == "shape"        ? &e.has_shape
                     : k == "data_offsets" ? &e.has_offsets
                                           : nullptr;
        if (!seen)
          return fail(tensor_where(where_, e.name), "unexpected key " + quote_for_message(k) +
                                                        " (a tensor entry has exactly dtype, shape and "
                                                        "data_offsets)");
        if (*seen) return fail(tensor_where(where_, e.name), "key " + quote_for_message(k) + " appears twice");
        *seen = true;
        state_ = k == "dtype" ? State::dtype : k == "shape" ? State::shape_start : State::offsets_start;
        return true;
      }
      case State::metadata:
        metadata.emplace_back(std::move(k), std::string());
        state_ = State::metadata_value;
        return true;
      default:
        return fail(where_, "unexpected key " + quote_for_message(k));
    }
  }
  bool end_object() override {
    switch (state_) {
      case State::root:
        state_ = State::done;
        return true;
      case State::entry:
        state_ = State::root;
        return true;
      case State::metadata:
        state_ = State::root;
        return true;
      default:
        return fail(where_, "unexpected end of object");
    }
  }
  bool start_array(std::size_t) override {
    if (state_ == State::shape_start) {
      state_ = State::shape;
      return true;
    }
    if (state_ == State::offsets_start) {
      state_ = State::offsets;
      return true;
    }
    return bad_value("an array");
  }
  bool end_array() override {
    if (state_ == State::shape || state_ == State::offsets) {
      state_ = State::entry;
      return true;
    }
    return fail(where_, "unexpected end of array");
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    syntax_error = true;
    error_byte = position;
    error_what = json_error_text(e.what());
    return false;
  }

 private:
  enum class State {
    start,
    root,
    entry_value,
    entry,
    dtype,
    shape_start,
    shape,
    offsets_start,
    offsets,
    metadata_start,
    metadata,
    metadata_value,
    done
  };

  bool fail(std::string where, std::string what) {
    error_where = std::move(where);
    error_what = std::move(what);
    return false;
  }
  // A value of the wrong kind for where it stands.
  bool bad_value(const std::string& shown) {
    switch (state_) {
      case State::start:
        return fail(where_, "header is not a JSON object");
      case State::entry_value:
        return fail(tensor_where(where_, entries.back().name),
                    "entry is " + shown + ", not an object with dtype, shape and data_offsets");
      case State::dtype:
        return fail(tensor_where(where_, entries.back().name), "dtype is " + shown + ", not a string");
      case State::shape_start:
        return fail(tensor_where(where_, entries.back().name), "shape is not an array");
      case State::offsets_start:
        return fail(tensor_where(where_, entries.back().name), "data_offsets is not a pair [begin, end]");
      case State::shape:
        return fail(tensor_where(where_, entries.back().name),
                    "a shape dimension holds " + shown + ", not a non-negative integer");
      case State::offsets:
        return fail(tensor_where(where_, entries.back().name),
                    "data_offsets holds " + shown + ", not a non-negative integer");
      case State::metadata_start:
        return fail(where_, "__metadata__ is not an object");
      case State::metadata_value:
        return fail(where_, "__metadata__ " + quote_for_message(metadata.back().first) + " is not a string");
      default:
        return fail(where_, "unexpected value " + shown);
    }
  }

  std::string where_;
  State state_ = State::start;
};

// The fast path: simdjson reads headers of the expected shape ({name: {dtype, shape, data_offsets}, __metadata__:
// {string: string}}). Anything else returns false and goes to the SAX parser above, which accepts the same documents
// and words every error, so simdjson decides speed, never what is accepted.
bool fast_parse(std::string_view text, std::vector<RawEntry>& entries,
                std::vector<std::pair<std::string, std::string>>& metadata) {
  // The DOM API picks the fastest kernel for this CPU at run time (the On-Demand API would use the one the
  // compiler targets, the portable fallback for plain x86-64).
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::object root;
  if (parser.parse(text.data(), text.size()).get(doc) || doc.get_object().get(root)) return false;
  for (auto [key, value] : root) {
    simdjson::dom::object obj;
    if (value.get_object().get(obj)) return false;
    if (key == "__metadata__") {
      for (auto [k, v] : obj) {
        std::string_view sv;
        if (v.get_string().get(sv)) return false;
        metadata.emplace_back(std::string(k), std::string(sv));
      }
      continue;
    }
    RawEntry& e = entries.emplace_back();
    e.name = std::string(key);
    for (auto [fk, fv] : obj) {
      if (fk == "dtype") {
        std::string_view d;
        if (e.has_dtype || fv.get_string().get(d)) return false;
        e.has_dtype = true;
        e.dtype = std::string(d);
        continue;
      }
      const bool shape = fk == "shape";
      if (!shape && fk != "data_offsets") return false;
      bool& has = shape ? e.has_shape : e.has_offsets;
      std::vector<std::uint64_t>& values = shape ? e.shape : e.offsets;
      simdjson::dom::array arr;
      if (has || fv.get_array().get(arr)) return false;
      has = true;
      for (auto v : arr) {
        std::uint64_t x = 0;
        if (v.get_uint64().get(x)) return false;
        values.push_back(x);
      }
    }
  }
  return true;
}

// Values of a sub-byte dtype that fill a whole number of bytes: 2 for F4 (one byte), 4 for F6_* (three bytes); 1 for
// every dtype of a byte or more.
int packed_row_values(Dtype d) {
  const int bits = dtype_bits(d);
  if (bits >= 8) return 1;
  int n = 1;
  while ((n * bits) % 8 != 0) ++n;
  return n;
}

TensorInfo validate_entry(RawEntry& raw, const std::string& file_where) {
  const std::string& name = raw.name;
  auto where = [&] { return tensor_where(file_where, name); };
  if (!raw.has_dtype || !raw.has_shape || !raw.has_offsets)
    throw InputError(where(),
                     std::string("entry lacks ") + (!raw.has_dtype   ? "dtype"
                                                    : !raw.has_shape ? "shape"
                                                                     : "data_offsets"),
                     kFix);
  TensorInfo t;
  auto d = parse_dtype(raw.dtype);
  if (!d)
    throw InputError(where(), "unknown dtype " + quote_for_message(raw.dtype) + " (known: " + known_dtype_names() + ")",
                     "convert the checkpoint with a safetensors release that writes standard dtypes");
  t.dtype = *d;
  if (raw.shape.size() > 64)
    throw InputError(where(), fmt::format("shape has {} dimensions (limit 64)", raw.shape.size()), kFix);
  std::uint64_t elements = 1;
  for (std::uint64_t n : raw.shape)
    if (__builtin_mul_overflow(elements, n, &elements))
      throw InputError(where(), "shape's element count overflows 64 bits", kFix);
  t.shape = std::move(raw.shape);
  t.elements = elements;
  if (raw.offsets.size() != 2) throw InputError(where(), "data_offsets is not a pair [begin, end]", kFix);
  t.begin = raw.offsets[0];
  t.end = raw.offsets[1];
  if (t.end < t.begin)
    throw InputError(where(), fmt::format("data_offsets [{}, {}) end before they begin", t.begin, t.end), kFix);
  std::uint64_t bits = 0;
  if (__builtin_mul_overflow(elements, static_cast<std::uint64_t>(dtype_bits(t.dtype)), &bits))
    throw InputError(where(), "shape × dtype size overflows 64 bits", kFix);
  if (bits % 8 != 0)
    throw InputError(
        where(), fmt::format("{} elements of {} are not a whole number of bytes", elements, dtype_name(t.dtype)), kFix);
  std::string shape = "[";
  for (std::size_t i = 0; i < t.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(t.shape[i]);
  shape += "]";
  // Sub-byte types are packed along the last dimension, so each row must fill whole bytes: two F4 values per byte,
  // four F6 values per three bytes; a row that ends mid-byte is malformed.
  if (const int packed = packed_row_values(t.dtype); packed > 1 && !t.shape.empty() && t.shape.back() % packed != 0)
    throw InputError(
        where(),
        fmt::format("shape {} of {} has last dimension {}, not a multiple of {}: {} values are packed "
                    "{} to {} along the last dimension, so each row must fill whole bytes",
                    shape, dtype_name(t.dtype), t.shape.back(), packed, dtype_name(t.dtype), packed,
                    packed * dtype_bits(t.dtype) / 8 == 1 ? std::string("a byte")
                                                          : fmt::format("{} bytes", packed * dtype_bits(t.dtype) / 8)),
        "re-download or re-export the checkpoint; this tensor's shape cannot hold packed values");
  if (t.end - t.begin != bits / 8)
    throw InputError(where(),
                     fmt::format("data_offsets [{}, {}) hold {} bytes, but shape {} of {} needs {} bytes", t.begin,
                                 t.end, t.end - t.begin, shape, dtype_name(t.dtype), bits / 8),
                     kFix);
  t.name = std::move(raw.name);
  return t;
}
}  // namespace

SafetensorsHeader parse_safetensors_header(std::string_view text, std::uint64_t data_bytes, const std::string& where) {
  SafetensorsHeader h;
  h.header_bytes = text.size();
  h.data_bytes = data_bytes;
  if (text.empty() || text.front() != '{')
    throw InputError(where, "header does not start with '{' (not a safetensors file?)", kFix);
  std::vector<RawEntry> entries;
  if (!fast_parse(text, entries, h.metadata)) {
    entries.clear();
    h.metadata.clear();
    HeaderSax sax(where);
    const bool ok = json::sax_parse(text.begin(), text.end(), &sax, nlohmann::detail::input_format_t::json, true);
    if (!ok) {
      if (sax.syntax_error)
        throw InputError(
            where,
            fmt::format("header is not valid JSON at byte {} of {}: {}", sax.error_byte, text.size(), sax.error_what),
            kFix);
      throw InputError(sax.error_where, sax.error_what, kFix);
    }
    entries = std::move(sax.entries);
    h.metadata = std::move(sax.metadata);
  }
  h.tensors.reserve(entries.size());
  for (RawEntry& raw : entries) h.tensors.push_back(validate_entry(raw, where));
  // Offsets: sorted by (begin, end), the tensors must tile [0, data_bytes) exactly (upstream Metadata::validate and
  // the MetadataIncompleteBuffer check).
  std::vector<const TensorInfo*> by_offset;
  by_offset.reserve(h.tensors.size());
  for (const auto& t : h.tensors) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(), [](const TensorInfo* a, const TensorInfo* b) {
    return a->begin != b->begin ? a->begin < b->begin : (a->end != b->end ? a->end < b->end : a->name < b->name);
  });
  std::uint64_t at = 0;
  const TensorInfo* previous = nullptr;
  for (const TensorInfo* t : by_offset) {
    if (t->end > data_bytes)
      throw InputError(tensor_where(where, t->name),
                       fmt::format("data_offsets [{}, {}) run past the data region, which holds {} bytes", t->begin,
                                   t->end, data_bytes),
                       kFix);
    if (t->begin < at)
      throw InputError(tensor_where(where, t->name),
                       fmt::format("data_offsets [{}, {}) overlap tensor {} at [{}, {})", t->begin, t->end,
                                   quote_for_message(previous->name, 200), previous->begin, previous->end),
                       kFix);
    if (t->begin > at)
      throw InputError(tensor_where(where, t->name),
                       fmt::format("data_offsets [{}, {}) leave bytes [{}, {}) of the data region to no tensor",
                                   t->begin, t->end, at, t->begin),
                       kFix);
    at = t->end;
    previous = t;
  }
  if (at != data_bytes)
    throw InputError(
        where,
        fmt::format("tensors end at byte {} of the data region, but the file holds {} data bytes", at, data_bytes),
        kFix);
  std::sort(h.tensors.begin(), h.tensors.end(),
            [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < h.tensors.size(); ++i)
    if (h.tensors[i].name == h.tensors[i - 1].name)
      throw InputError(tensor_where(where, h.tensors[i].name), "appears twice in the header", kFix);
  std::sort(h.metadata.begin(), h.metadata.end());
  return h;
}

SafetensorsHeader read_safetensors_header(const std::filesystem::path& file) {
  const std::string where = file.string();
  Fd fd;
  fd.fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd.fd < 0) {
    if (errno == ENOENT) throw InputError(where, "file not found", "check the path");
    throw InputError(where, std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) throw InputError(where, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw InputError(where, "not a regular file", "point at a .safetensors file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < 8)
    throw InputError(where, fmt::format("file is {} bytes, shorter than the 8-byte header length", size), kFix);
  unsigned char prefix[8];
  read_at(fd.fd, reinterpret_cast<char*>(prefix), 8, 0, where);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | prefix[i];
  if (n > kMaxHeaderBytes)
    throw InputError(where, fmt::format("header length {} is over the 100 MB limit ({} bytes)", n, kMaxHeaderBytes),
                     kFix);
  if (n > size - 8)
    throw InputError(where, fmt::format("header length {} runs past the end of the file ({} bytes)", n, size), kFix);
  std::string text(n, '\0');
  read_at(fd.fd, text.data(), n, 8, where);
  SafetensorsHeader h = parse_safetensors_header(text, size - 8 - n, where);
  h.file = file;
  h.file_bytes = size;
  return h;
}

}  // namespace openrecipes::params
