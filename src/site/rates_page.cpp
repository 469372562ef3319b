// The rates page: each GPU type's rates and peak with their sources (site/rates_page.h).
#include "site/rates_page.h"

#include <fmt/format.h>

#include "core/text.h"
#include "site/page_parts.h"

namespace openrecipes::site {

using nlohmann::json;

json rates_view(const json& board) {
  using namespace parts;
  json gpus = json::array();
  for (auto it = board["gpus"].begin(); it != board["gpus"].end(); ++it) {
    const json& g = it.value();
    gpus.push_back(
        {{"key", it.key()},
         {"name", g["name"]},
         {"instance", g["instance"]},
         {"instance_rate",
          cell(number(g, "instance_dollars_per_hour"), [](double x) { return fmt::format("${:.3f}", x); })},
         {"rate", cell(number(g, "dollars_per_gpu_hour"), [](double x) { return fmt::format("${:.4f}", x); })},
         {"peak", cell(number(g, "dense_bf16_tflops"), [](double x) { return with_thousands(x, 1); })},
         {"price_date", g["price_date"]},
         {"price_source", g["price_source"]},
         {"price_link", source_link(g, "price_source")},
         {"peak_source", g["peak_source"]},
         {"peak_link", source_link(g, "peak_source")}});
  }
  return {{"gpus", gpus}};
}

}  // namespace openrecipes::site
