// SHA-256 via OpenSSL EVP (SPEC §1.8).
#include "core/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace openrecipes {

struct Sha256::Impl {
  EVP_MD_CTX* ctx = nullptr;
  bool done = false;
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {
  impl_->ctx = EVP_MD_CTX_new();
  if (!impl_->ctx || EVP_DigestInit_ex(impl_->ctx, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
}

Sha256::~Sha256() { EVP_MD_CTX_free(impl_->ctx); }

void Sha256::update(const void* data, std::size_t size) {
  if (impl_->done) throw std::logic_error("Sha256::update after hex()");
  if (size > 0 && EVP_DigestUpdate(impl_->ctx, data, size) != 1) throw std::runtime_error("OpenSSL: SHA-256 update");
}

std::string Sha256::hex() {
  if (impl_->done) throw std::logic_error("Sha256::hex called twice");
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(impl_->ctx, md, &len) != 1) throw std::runtime_error("OpenSSL: SHA-256 final");
  impl_->done = true;
  static const char* digits = "0123456789abcdef";
  std::string out(2 * len, '0');
  for (unsigned i = 0; i < len; ++i) {
    out[2 * i] = digits[md[i] >> 4];
    out[2 * i + 1] = digits[md[i] & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex();
}

bool is_sha256_hex(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace openrecipes
