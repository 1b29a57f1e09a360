// Shared by the fuzz harnesses of tests/fuzz (docs/fuzzing.md): a property
// check that aborts with a message, so that libFuzzer keeps the input and the
// regression run names what broke; the input cut into chunks at points the
// input itself chooses; and a buffer that ends right before an unreadable
// page.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace smsupd::fuzz {

// Prints the broken property and `detail`, then aborts.
[[noreturn]] void Fail(const char* condition, const char* file, int line, std::string_view detail);

#define FUZZ_CHECK(condition, detail)                                                    \
  do {                                                                                   \
    if (!(condition)) ::smsupd::fuzz::Fail(#condition, __FILE__, __LINE__, (detail));   \
  } while (0)

// The input as text (bytes as they are, NULs included).
inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// How deep the arrays and objects of JSON `text` nest (0: a scalar), read
// without parsing and without recursion: brackets outside strings. A model
// the harnesses check the parsers' depth bound against.
int JsonNesting(std::string_view text);

// Splits `bytes` into chunks of 1..64 bytes whose sizes follow from
// `split_seed`: the same seed gives the same cuts, so a crash replays, and the
// fuzzer moves the cuts by mutating the seed.
std::vector<std::string_view> Chunks(std::string_view bytes, std::uint8_t split_seed);

// `size` bytes ending right before a PROT_NONE page: reading one byte past
// the end faults, even inside a library that was not built with a sanitizer
// (libibmad's field accessors).
class GuardedBytes {
 public:
  GuardedBytes() = default;
  ~GuardedBytes();
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;

  // Copies `size` bytes of `data` to just before the guard page and returns
  // where they start. Valid until the next Place().
  const std::uint8_t* Place(const std::uint8_t* data, std::size_t size);

 private:
  void Release();

  std::uint8_t* base_ = nullptr;
  std::size_t usable_ = 0;  // bytes before the guard page
};

}  // namespace smsupd::fuzz
