#include "core/sha256.h"

#include <gtest/gtest.h>

namespace openrecipes {

// FIPS 180-2 appendix B test vectors.
TEST(Sha256, fips_180_2_vectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, incremental_update_equals_one_shot) {
  Sha256 h;
  h.update("ab");
  h.update("c");
  EXPECT_EQ(h.hex(), sha256_hex("abc"));
  EXPECT_THROW(h.update("x"), std::logic_error);
}

TEST(Sha256, hex_shape_check) {
  EXPECT_TRUE(is_sha256_hex(sha256_hex("x")));
  EXPECT_FALSE(is_sha256_hex("ABC"));
  EXPECT_FALSE(is_sha256_hex(std::string(64, 'g')));
}

}  // namespace openrecipes
