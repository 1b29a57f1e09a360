// smctl prints texts that come from the daemon (events, status, plan
// diagnostics), which hold what the fabric and callers said. The daemon makes
// fabric strings printable where they enter; as a second line, everything
// smctl writes passes a filter that never lets a control character reach a
// terminal: not an escape sequence, not a C1 control (U+009B is a CSI).
#pragma once

#include <ostream>
#include <streambuf>

namespace smsupd::smctl {

// Forwards to `target`, writing C0 controls but newline and tab, and DEL, as
// `\xHH`, and C1 controls (UTF-8 C2 80..C2 9F) as `\u{00HH}`; every other
// byte as it is.
class TerminalSafeBuffer : public std::streambuf {
 public:
  explicit TerminalSafeBuffer(std::streambuf* target) : target_(target) {}
  // Writes a 0xC2 still held back (nothing followed it) as `\xc2`.
  void Finish();

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool Put(const char* text);
  std::streambuf* target_;
  bool after_c2_ = false;  // a 0xC2 byte is held back: it may start a C1 control
};

// Installs the filter on `stream` for as long as it lives.
class TerminalSafeStream {
 public:
  explicit TerminalSafeStream(std::ostream& stream)
      : stream_(stream), buffer_(stream.rdbuf()), original_(stream.rdbuf(&buffer_)) {}
  ~TerminalSafeStream() {
    buffer_.Finish();
    stream_.flush();
    stream_.rdbuf(original_);
  }
  TerminalSafeStream(const TerminalSafeStream&) = delete;
  TerminalSafeStream& operator=(const TerminalSafeStream&) = delete;

 private:
  std::ostream& stream_;
  TerminalSafeBuffer buffer_;
  std::streambuf* original_;
};

}  // namespace smsupd::smctl
