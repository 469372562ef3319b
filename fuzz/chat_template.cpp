// Fuzz target: a chat template (SPEC §1.2; rows/template): compiled and rendered in the sandbox, with budgets a tenth
// of the defaults so that every input ends quickly. Input: the template, then optionally a NUL byte and the messages
// as JSON (a list of {role, content}); without them, a two-message conversation.
#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "rows/template/chat_template.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const auto in = fuzz::text(data, size);
  const std::size_t nul = in.find('\0');
  const std::string_view source = in.substr(0, nul);
  nlohmann::ordered_json messages = nlohmann::ordered_json::parse(
      R"([{"role": "user", "content": "What is 2+2?"}, {"role": "assistant", "content": "4"}])");
  if (nul != std::string_view::npos) {
    auto parsed = nlohmann::ordered_json::parse(in.substr(nul + 1), nullptr, false);
    if (!parsed.is_discarded() && parsed.is_array()) messages = std::move(parsed);
  }
  rows::TemplateLimits limits;
  limits.max_output_bytes = 1u << 20;
  limits.max_steps = 2'000'000;
  limits.max_alloc_bytes = 32u << 20;
  fuzz::expect_input_error_or_success([&] {
    auto t = rows::ChatTemplate::compile(source, "chat_template.jinja", limits);
    nlohmann::ordered_json vars = {
        {"messages", messages}, {"add_generation_prompt", false}, {"bos_token", "<s>"}, {"eos_token", "</s>"}};
    rows::RenderOptions options;
    options.limits = limits;
    t.render(vars, options);
  });
  return 0;
}
