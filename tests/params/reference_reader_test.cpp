// The header reader against the Python reference reader (tests/params/safetensors_params.py: json + struct only).
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "hf_layouts.h"
#include "params/count.h"
#include "safetensors_writer.h"
#include "testing/support.h"

namespace openrecipes::params {
namespace {
using json = nlohmann::json;
namespace st = testing::st;

TEST(ReferenceReader, python_sees_the_same_shards_tensors_and_elements) {
  OPENRECIPES_REQUIRE_FIXTURES();
  std::ifstream in(testing::fixtures_dir() / "configs/Qwen3.6-27B-NVFP4/config.json");
  const json config = json::parse(in);
  testing::TempDir d;
  auto layout = testing::hf::layout_for(config);
  st::write_sharded(d.path(), layout, st::split_evenly(layout, 3));
  ParamCount pc = count_from_checkpoint(d.path(), config);
  auto r = testing::run_process({testing::oracle_python(),
                                 (testing::source_dir() / "tests/params/safetensors_params.py").string(),
                                 d.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json ref = json::parse(r.out);
  EXPECT_EQ(ref["shards"], 3);
  EXPECT_EQ(ref["tensors"], pc.tensors);
  // The reference counts every stored element; N's count splits them into parameters (total_params, NVFP4 U8 weights
  // unpacked at two values per byte, so one extra element per stored byte of those weights) and quantization scales
  // (weight_scale, weight_scale_2, input_scale, k_scale, v_scale: not parameters), so weights + scales is exact.
  std::map<std::string, std::string> dtype;
  for (const auto& t : layout) dtype[t.name] = t.dtype;
  std::int64_t unpacked_extra = 0;
  for (const auto& t : pc.tensor_list)
    if (dtype.at(t.name) == "U8" && t.cls != ParamClass::quantization_scale) unpacked_extra += t.params / 2;
  EXPECT_GT(unpacked_extra, 0);
  ASSERT_TRUE(pc.quantization_scales);
  EXPECT_GT(pc.quantization_scales->values, 0);
  EXPECT_EQ(ref["elements"].get<std::int64_t>() + unpacked_extra, *pc.total_params + pc.quantization_scales->values);
}

}  // namespace
}  // namespace openrecipes::params
