// Page rendering through kainjow mustache (site/html.h).
#include "site/html.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

#include "core/text.h"
#include "site/site_files.h"

namespace openrecipes::site {

namespace mustache = kainjow::mustache;

namespace {

// What a page shows of a string: inert_text (bidi controls visible), and every C0 control but the line break and the
// tab, DEL and every C1 control written visibly ("\u001B"): a stranger's field carries no terminal escape sequence or
// stray control into the page.
std::string page_text(std::string_view text) {
  std::string in = inert_text(text);
  const bool plain = std::none_of(in.begin(), in.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c == 0xc2;  // 0xC2 starts every C1 control
  });
  if (plain) return in;  // most text: nothing to write visibly, and no second copy
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
    } else if (c1_control_at(in, i)) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(in[++i])));
    } else {
      out += in[i];
    }
  }
  return out;
}

mustache::data to_data(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      mustache::data d{mustache::data::type::object};
      for (auto it = j.begin(); it != j.end(); ++it) d.set(it.key(), to_data(it.value()));
      return d;
    }
    case nlohmann::json::value_t::array: {
      mustache::data d{mustache::data::type::list};
      for (const auto& x : j) d.push_back(to_data(x));
      return d;
    }
    case nlohmann::json::value_t::string:
      return mustache::data{page_text(j.get_ref<const std::string&>())};
    case nlohmann::json::value_t::boolean:
      return mustache::data{j.get<bool>()};
    case nlohmann::json::value_t::number_integer:
      return mustache::data{std::to_string(j.get<std::int64_t>())};
    case nlohmann::json::value_t::number_unsigned:
      return mustache::data{std::to_string(j.get<std::uint64_t>())};
    case nlohmann::json::value_t::number_float:
      return mustache::data{format_double(j.get<double>())};
    default:
      return mustache::data{false};
  }
}

// Parsed templates, once per thread (rendering 10,000 recipe pages parses recipe.mustache once on each thread;
// mustache::render records errors in the template, so threads do not share one).
mustache::mustache& parsed(std::string_view name) {
  thread_local std::map<std::string, std::unique_ptr<mustache::mustache>, std::less<>> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    auto t = std::make_unique<mustache::mustache>(std::string(site_file(fmt::format("templates/{}.mustache", name))));
    if (!t->is_valid())
      throw std::logic_error(fmt::format("templates/{}.mustache does not parse: {}", name, t->error_message()));
    it = cache.emplace(std::string(name), std::move(t)).first;
  }
  return *it->second;
}

}  // namespace

std::string html_text(std::string_view text) { return mustache::html_escape<std::string>(page_text(text)); }

std::string render_template(std::string_view name, const nlohmann::json& view) {
  mustache::mustache& t = parsed(name);
  std::string out = t.render(to_data(view));
  if (!t.is_valid())
    throw std::logic_error(fmt::format("templates/{}.mustache did not render: {}", name, t.error_message()));
  return out;
}

}  // namespace openrecipes::site
