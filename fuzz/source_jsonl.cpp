// Fuzz target: a JSONL source shard of the rows build (SPEC §1.1; rows/source): opened (rows counted in chunks on two
// threads), hashed, read whole in chunks, and read again one conversation at a time; both reads must agree.
#include "fuzz_support.h"
#include "rows/source/source_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const auto path = fuzz::scratch() / "train.jsonl";
  fuzz::write_file(path, fuzz::text(data, size));
  fuzz::expect_input_error_or_success([&] {
    auto set = rows::SourceSet::open({path}, 2);
    set.compute_sha256();
    auto arena = set.load_all();
    if (arena.size() != set.size()) fuzz::finding("read a different number of conversations than counted");
    std::uint64_t n = 0;
    set.read_each([&](std::uint64_t index, rows::ConversationView c) {
      if (index != n++ || rows::to_conversation(c) != rows::to_conversation(arena[index]))
        fuzz::finding("read_each and load_all read different conversations");
    });
  });
  return 0;
}
