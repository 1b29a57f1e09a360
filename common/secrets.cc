#include "common/secrets.h"

#include <cctype>

namespace smsupd {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool EqualsIgnoringCase(std::string_view text, std::string_view word) {
  if (text.size() != word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != word[i]) return false;
  return true;
}

// The length of the secret name starting at `at`, or 0.
std::size_t SecretNameAt(std::string_view text, std::size_t at) {
  if (at > 0 && IsWordChar(text[at - 1])) return 0;
  for (std::string_view name : kSecretOptions) {
    if (at + name.size() > text.size()) continue;
    if (!EqualsIgnoringCase(text.substr(at, name.size()), name)) continue;
    if (at + name.size() < text.size() && IsWordChar(text[at + name.size()])) continue;
    return name.size();
  }
  return 0;
}

// The length of a key value at `at`: 0x + hex digits, or a run of at least
// four hex digits (a decimal key is one too); 0 when there is none.
std::size_t ValueAt(std::string_view text, std::size_t at) {
  std::size_t end = at;
  if (text.size() - at > 2 && text[at] == '0' && (text[at + 1] == 'x' || text[at + 1] == 'X'))
    end += 2;
  const std::size_t digits_start = end;
  while (end < text.size() && std::isxdigit(static_cast<unsigned char>(text[end]))) ++end;
  const std::size_t digits = end - digits_start;
  if (digits == 0 || (digits_start == at && digits < 4)) return 0;
  if (end < text.size() && IsWordChar(text[end])) return 0;  // part of a longer word
  return end - at;
}

}  // namespace

bool IsSecretOption(std::string_view name) {
  for (std::string_view secret : kSecretOptions)
    if (EqualsIgnoringCase(name, secret)) return true;
  return false;
}

std::string RedactSecrets(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t name = SecretNameAt(text, i);
    if (name == 0) {
      out.push_back(text[i++]);
      continue;
    }
    out.append(text.substr(i, name));
    i += name;
    // Separators between the name and its value: spaces, '=', ':', quotes.
    std::size_t value = i;
    while (value < text.size() && value - i < 8 &&
           (text[value] == ' ' || text[value] == '\t' || text[value] == '=' ||
            text[value] == ':' || text[value] == '"' || text[value] == '\''))
      ++value;
    if (const std::size_t length = ValueAt(text, value); length > 0) {
      out.append(text.substr(i, value - i));
      out.append(kRedacted);
      i = value + length;
    }
  }
  return out;
}

}  // namespace smsupd
