// Checkpoint folders, index files and shards: which headers to read, and their agreement (SPEC §3).
#include "params/checkpoint.h"

#include <fmt/format.h>

#include <simdjson.h>
#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "core/text.h"

namespace openrecipes::params {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool is_safetensors_name(const fs::path& p) { return p.extension() == ".safetensors"; }

// Lists every tensor in shard order, then by name within each shard (each header is sorted by name already).
void index_tensors(Checkpoint& c) {
  std::size_t total = 0;
  for (const auto& sh : c.shards) total += sh.tensors.size();
  c.tensors.clear();
  c.tensors.reserve(total);
  for (std::size_t i = 0; i < c.shards.size(); ++i)
    for (const auto& t : c.shards[i].tensors) c.tensors.push_back({&t, i});
}

Checkpoint open_single(const fs::path& file) {
  Checkpoint c;
  c.shards.push_back(read_safetensors_header(file));
  index_tensors(c);
  return c;
}

// Streams an index (nlohmann SAX, no document tree) into (tensor, shard) pairs from its `weight_map`; every other
// key (metadata) is skipped whole.
class IndexSax : public nlohmann::json_sax<json> {
 public:
  std::vector<std::pair<std::string, std::string>> entries;  // tensor, shard
  bool saw_weight_map = false;
  std::string error;  // structure error
  std::size_t error_byte = 0;
  bool syntax_error = false;

  bool null() override { return value("null"); }
  bool boolean(bool) override { return value("a boolean"); }
  bool number_integer(number_integer_t) override { return value("a number"); }
  bool number_unsigned(number_unsigned_t) override { return value("a number"); }
  bool number_float(number_float_t, const string_t&) override { return value("a number"); }
  bool binary(binary_t&) override { return value("binary"); }
  bool string(string_t& v) override {
    if (depth_ == 2 && in_map_) {
      entries.back().second = std::move(v);
      return true;
    }
    return value("a string");
  }
  bool start_object(std::size_t) override {
    if (depth_ == 0 && started_) return fail("is not a JSON object");
    started_ = true;
    if (depth_ == 1 && pending_map_) {
      in_map_ = true;
      saw_weight_map = true;
    } else if (depth_ == 2 && in_map_) {
      return fail("weight_map " + quote_for_message(entries.back().first, 200) + ": shard name is not a string");
    }
    pending_map_ = false;
    ++depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1)
      pending_map_ = k == "weight_map";
    else if (depth_ == 2 && in_map_)
      entries.emplace_back(std::move(k), std::string());
    return true;
  }
  bool end_object() override {
    --depth_;
    if (depth_ == 1) in_map_ = false;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 0) return fail("is not a JSON object");
    if (depth_ == 1 && pending_map_) return fail("has no weight_map object (tensor name -> shard file)");
    if (depth_ == 2 && in_map_)
      return fail("weight_map " + quote_for_message(entries.back().first, 200) + ": shard name is not a string");
    pending_map_ = false;
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    syntax_error = true;
    error_byte = position;
    error = json_error_text(e.what());
    return false;
  }

 private:
  bool fail(std::string what) {
    error = std::move(what);
    return false;
  }
  bool value(const char* kind) {
    if (depth_ == 0) return fail("is not a JSON object");
    if (depth_ == 1 && pending_map_) return fail("has no weight_map object (tensor name -> shard file)");
    if (depth_ == 2 && in_map_)
      return fail("weight_map " + quote_for_message(entries.back().first, 200) + ": shard name is " + kind +
                  ", not a string");
    pending_map_ = false;
    return true;
  }
  int depth_ = 0;
  bool started_ = false, pending_map_ = false, in_map_ = false;
};

// Reads the headers of `files` on up to 8 threads; results and the first error come back in file order.
std::vector<SafetensorsHeader> read_headers(const std::vector<fs::path>& files) {
  std::vector<SafetensorsHeader> out(files.size());
  std::vector<std::exception_ptr> errors(files.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        out[i] = read_safetensors_header(files[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>({files.size(), 8, std::max(1u, std::thread::hardware_concurrency())});
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

// The fast path for model.safetensors.index.json: simdjson (DOM API: the fastest kernel for this CPU, picked at
// run time) when the document has the expected shape; anything else returns false and goes to IndexSax, which
// accepts the same documents and words every error.
bool fast_index(std::string_view text, std::vector<std::pair<std::string, std::string>>& entries, bool& saw) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::object root;
  if (parser.parse(text.data(), text.size()).get(doc) || doc.get_object().get(root)) return false;
  for (auto [key, value] : root) {
    if (key != "weight_map") continue;
    simdjson::dom::object map;
    if (saw || value.get_object().get(map)) return false;
    saw = true;
    for (auto [tensor, shard] : map) {
      std::string_view sv;
      if (shard.get_string().get(sv)) return false;
      entries.emplace_back(std::string(tensor), std::string(sv));
    }
  }
  return true;
}

Checkpoint open_index(const fs::path& index_path) {
  const std::string where = index_path.string();
  const std::string text = read_file(index_path);
  check_json_depth(text, kMaxJsonConfigDepth, where, "point at the checkpoint's model.safetensors.index.json");
  IndexSax sax;
  if (!fast_index(text, sax.entries, sax.saw_weight_map)) {
    sax.entries.clear();
    sax.saw_weight_map = false;
    const bool ok = json::sax_parse(text.begin(), text.end(), &sax, nlohmann::detail::input_format_t::json, true);
    if (!ok && sax.syntax_error)
      throw InputError(where, fmt::format("not valid JSON at byte {}: {}", sax.error_byte, sax.error),
                       "re-download the index from the checkpoint's repository");
    if (!ok) throw InputError(where, sax.error, "point at the checkpoint's model.safetensors.index.json");
  }
  if (!sax.saw_weight_map)
    throw InputError(where, "has no weight_map object (tensor name -> shard file)",
                     "point at the checkpoint's model.safetensors.index.json");
  if (sax.entries.empty())
    throw InputError(where, "weight_map is empty", "re-download the index from the checkpoint's repository");
  // Group by shard: shard file name -> positions in entries. Each tensor may be listed once.
  const auto& entries = sax.entries;
  std::unordered_map<std::string_view, std::size_t> group_of;  // tensor -> group
  group_of.reserve(entries.size());
  std::map<std::string_view, std::vector<std::size_t>> by_shard;
  for (std::size_t i = 0; i < entries.size(); ++i) by_shard[entries[i].second].push_back(i);
  struct Group {
    std::string shard;
    std::vector<std::size_t> members;  // positions in entries
  };
  std::vector<Group> groups;
  for (auto& [shard, members] : by_shard) {
    for (std::size_t i : members)
      if (!group_of.emplace(entries[i].first, groups.size()).second)
        throw InputError(where + ": weight_map " + quote_for_message(entries[i].first, 200), "is listed twice",
                         "re-download the index from the checkpoint's repository");
    groups.push_back({std::string(shard), std::move(members)});
  }
  const fs::path folder = index_path.has_parent_path() ? index_path.parent_path() : fs::path(".");
  std::vector<fs::path> files;
  for (const Group& g : groups) {
    const std::string& shard = g.shard;
    const std::string field = where + ": weight_map " + quote_for_message(entries[g.members.front()].first, 200);
    // Hugging Face names shards as plain file names beside the index. Anything with a folder part could reach
    // outside the checkpoint, so it is refused (symlinks, as in the Hugging Face cache, are followed as usual).
    if (shard.empty() || shard == "." || shard == ".." || shard.find('/') != std::string::npos ||
        shard.find('\\') != std::string::npos || shard.find('\0') != std::string::npos)
      throw InputError(field, "shard name " + quote_for_message(shard) + " is not a plain file name",
                       "an index names shards in its own folder, e.g. model-00001-of-00002.safetensors");
    fs::path shard_path = folder / shard;
    std::error_code ec;
    if (!fs::exists(shard_path, ec))
      throw InputError(field,
                       fmt::format("maps to shard {} ({} tensors), which is missing: {}", quote_for_message(shard),
                                   g.members.size(), shard_path.string()),
                       "download every shard the index names, or point at a complete checkpoint");
    files.push_back(std::move(shard_path));
  }
  Checkpoint c;
  c.index = index_path;
  c.shards = read_headers(files);
  for (std::size_t s = 0; s < groups.size(); ++s) {
    const Group& g = groups[s];
    const SafetensorsHeader& h = c.shards[s];
    for (const TensorInfo& t : h.tensors) {  // sorted by name: the first stray one is named
      auto it = group_of.find(t.name);
      if (it == group_of.end() || it->second != s)
        throw InputError(h.file.string() + ": tensor " + quote_for_message(t.name, 200),
                         it == group_of.end() ? std::string("is in the shard but not in the index's weight_map")
                                              : "is in this shard, but the index puts it in " +
                                                    quote_for_message(groups[it->second].shard),
                         "re-download the index; it does not match the shards");
    }
    if (h.tensors.size() != g.members.size()) {  // some listed tensor is absent: name the first by name
      std::unordered_set<std::string_view> present;
      for (const TensorInfo& t : h.tensors) present.insert(t.name);
      std::vector<std::string_view> missing;
      for (std::size_t i : g.members)
        if (!present.count(entries[i].first)) missing.push_back(entries[i].first);
      std::sort(missing.begin(), missing.end());
      throw InputError(where + ": weight_map " + quote_for_message(missing.front(), 200),
                       "tensor is not in shard " + quote_for_message(g.shard) + " where the index puts it",
                       "re-download the shard or the index; they do not match");
    }
  }
  index_tensors(c);
  return c;
}

}  // namespace

Checkpoint open_checkpoint(const fs::path& path) {
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    throw InputError(path.string(), "not found", "give a checkpoint folder, its index.json or a .safetensors file");
  if (fs::is_directory(st)) {
    if (fs::exists(path / kIndexFileName, ec)) return open_index(path / kIndexFileName);
    if (fs::exists(path / "model.safetensors", ec)) return open_single(path / "model.safetensors");
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.is_regular_file() && is_safetensors_name(e.path())) found.push_back(e.path());
    std::sort(found.begin(), found.end());
    if (found.empty())
      throw InputError(path.string(), "holds no .safetensors file", "download the checkpoint's weights");
    if (found.size() > 1)
      throw InputError(path.string(),
                       fmt::format("holds {} .safetensors files and no {}", found.size(), kIndexFileName),
                       "download the index too, or point at one file");
    return open_single(found.front());
  }
  if (path.extension() == ".json") return open_index(path);
  return open_single(path);
}

}  // namespace openrecipes::params
