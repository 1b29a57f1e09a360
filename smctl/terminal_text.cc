#include "smctl/terminal_text.h"

#include <cstdio>
#include <cstring>

namespace smsupd::smctl {

bool TerminalSafeBuffer::Put(const char* text) {
  const auto length = static_cast<std::streamsize>(std::strlen(text));
  return target_->sputn(text, length) == length;
}

std::streambuf::int_type TerminalSafeBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const auto byte = static_cast<unsigned char>(traits_type::to_char_type(c));
  char text[16];
  if (after_c2_) {
    after_c2_ = false;
    if (byte >= 0x80 && byte <= 0x9f) {
      std::snprintf(text, sizeof text, "\\u{%04x}", byte);
      return Put(text) ? c : traits_type::eof();
    }
    if (!Put("\xc2")) return traits_type::eof();
  }
  if (byte == 0xc2) {
    after_c2_ = true;
    return c;
  }
  if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f) {
    std::snprintf(text, sizeof text, "\\x%02x", byte);
    return Put(text) ? c : traits_type::eof();
  }
  return traits_type::eq_int_type(target_->sputc(static_cast<char>(byte)), traits_type::eof())
             ? traits_type::eof()
             : c;
}

void TerminalSafeBuffer::Finish() {
  if (after_c2_) Put("\\xc2");
  after_c2_ = false;
}

// A held 0xC2 stays held: the byte after it decides what it is.
int TerminalSafeBuffer::sync() { return target_->pubsync(); }

}  // namespace smsupd::smctl
