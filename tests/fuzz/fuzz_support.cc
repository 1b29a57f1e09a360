#include "tests/fuzz/fuzz_support.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace smsupd::fuzz {

void Fail(const char* condition, const char* file, int line, std::string_view detail) {
  std::fprintf(stderr, "%s:%d: property broken: %s\n%.*s\n", file, line, condition,
               static_cast<int>(detail.size()), detail.data());
  std::fflush(stderr);
  std::abort();
}

std::vector<std::string_view> Chunks(std::string_view bytes, std::uint8_t split_seed) {
  std::vector<std::string_view> chunks;
  std::uint32_t state = 0x9e3779b9u ^ split_seed;  // xorshift32; never zero
  while (!bytes.empty()) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    std::size_t size = std::min<std::size_t>(bytes.size(), 1 + state % 64);
    chunks.push_back(bytes.substr(0, size));
    bytes.remove_prefix(size);
  }
  return chunks;
}

GuardedBytes::~GuardedBytes() { Release(); }

void GuardedBytes::Release() {
  if (base_ != nullptr) ::munmap(base_, usable_ + static_cast<std::size_t>(::getpagesize()));
  base_ = nullptr;
  usable_ = 0;
}

const std::uint8_t* GuardedBytes::Place(const std::uint8_t* data, std::size_t size) {
  const std::size_t page = static_cast<std::size_t>(::getpagesize());
  if (size > usable_) {
    Release();
    usable_ = (size + page - 1) / page * page + page;
    void* mapped = ::mmap(nullptr, usable_ + page, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) std::abort();
    base_ = static_cast<std::uint8_t*>(mapped);
    if (::mprotect(base_ + usable_, page, PROT_NONE) != 0) std::abort();
  }
  std::uint8_t* start = base_ + usable_ - size;
  if (size != 0) std::memcpy(start, data, size);
  return start;
}

int JsonNesting(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace smsupd::fuzz
