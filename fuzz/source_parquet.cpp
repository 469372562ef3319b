// Fuzz target: a parquet source shard of the rows build (SPEC §1.1; rows/source): DuckDB's parquet reader under our
// schema, null, UTF-8 and size checks; opened, hashed and read whole.
#include "fuzz_support.h"
#include "rows/source/source_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const auto path = fuzz::scratch() / "train.parquet";
  fuzz::write_file(path, fuzz::text(data, size));
  fuzz::expect_input_error_or_success([&] {
    auto set = rows::SourceSet::open({path}, 1);
    set.compute_sha256();
    auto arena = set.load_all();
    if (arena.size() != set.size()) fuzz::finding("read a different number of conversations than counted");
  });
  return 0;
}
