// Text from outside the daemon (a NodeDescription: 64 arbitrary bytes from
// any switch or HCA; a line of OpenSM's log, which quotes them) made safe
// once, where it enters: valid UTF-8 that a terminal, the journal, a hook's
// environment and a strict JSON writer all take as plain text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace smsupd {

// `bytes` as printable UTF-8:
//   - valid UTF-8 characters are kept, but for controls and the characters
//     that change how text around them is shown;
//   - `\` becomes `\\`; tab, newline and carriage return become `\t`, `\n`,
//     `\r`; other C0 controls, DEL, and every byte that is not part of a
//     valid UTF-8 sequence become `\xHH`; C1 controls (U+0080-U+009F: a
//     terminal reads U+009B as an escape sequence) and the bidirectional
//     overrides and isolates (U+202A-U+202E, U+2066-U+2069) become `\u{HHHH}`;
//   - at most `max_bytes` bytes come out: the text is cut on a character
//     boundary and ends in "..." when it was longer.
// Every byte of `bytes` is read once; the result never holds a byte < 0x20.
std::string PrintableText(std::string_view bytes, std::size_t max_bytes);

// `text` cut to at most `limit` bytes on a UTF-8 character boundary, with
// "..." in place of what was cut (half a sequence would become U+FFFD in
// the JSON that carries it).
std::string CutText(std::string text, std::size_t limit);

// A NodeDescription (IBA 14.2.5.2: 64 bytes, NUL-padded) as printable text:
// the bytes before the first NUL, through PrintableText, at most
// kMaxNodeDescriptionText bytes (four per input byte at worst).
inline constexpr std::size_t kNodeDescriptionBytes = 64;
inline constexpr std::size_t kMaxNodeDescriptionText = 4 * kNodeDescriptionBytes;
std::string PrintableNodeDescription(std::string_view bytes);

}  // namespace smsupd
