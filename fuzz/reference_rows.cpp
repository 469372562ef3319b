// Fuzz target: a reference rows build's rows.yaml (registry/reference_rows.h; docs/rows-format.md "Reference rows
// builds"), loaded from a folder registry/rows/fuzz/ whose rows.manifest.json is the fixture build's (Qwen3, L = 512,
// seed 0, the 100 Tulu 3 conversations of ../shared/fixtures/tulu3), so that a rows.yaml recording the same build
// loads and every other one is refused field by field. What loads must be written back by reference_rows_yaml to
// text that loads to the same build.
#include "registry/reference_rows.h"
#include "fuzz_support.h"

namespace {

const char* const kManifest = R"({
  "chat_template_sha256": "87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5",
  "conversations": 100,
  "dataset_id": "allenai/tulu-3-sft-mixture",
  "dataset_revision": "b14afda60f1bbebe55d5d2fa1e4df5042f97f8be",
  "eos_id": 151645,
  "eos_token": "<|im_end|>",
  "format_version": 1,
  "row_length": 512,
  "rows_requested": null,
  "rows_sha256": "30eb27066ab49cc9eeef9edb3862a39c6d98649683cbfc9cfe28e19dbef4aca8",
  "rows_written": 81,
  "seed": 0,
  "sources": [
    {
      "bytes": 222762,
      "conversations": 100,
      "name": "sft_sample.jsonl",
      "sha256": "1250eb7cf35a8c6f28c94a80697d887d3f7647420ee5019e2dad5c08bd769862"
    }
  ],
  "strftime_date": "2026-01-01",
  "tokenizer_config_sha256": "5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63",
  "tokenizer_json_sha256": "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
  "tokens_dropped": 223,
  "tool_version": "openrecipes 0.1.0"
}
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const auto dir = fuzz::scratch() / "rows" / "fuzz";
  fuzz::write_file(dir / registry::kReferenceManifestName, kManifest);
  fuzz::write_file(dir / "rows.yaml", fuzz::text(data, size));
  std::optional<registry::ReferenceRows> loaded;
  fuzz::expect_input_error_or_success([&] { loaded = registry::load_reference_rows(dir); });
  if (loaded) {
    fuzz::write_file(dir / "rows.yaml",
                     registry::reference_rows_yaml(loaded->id, loaded->manifest, loaded->prefixes, ""));
    const auto again = registry::load_reference_rows(dir);
    if (!(again.manifest == loaded->manifest) || again.prefixes != loaded->prefixes)
      fuzz::finding("rows.yaml written back does not load to the same build");
  }
  return 0;
}
