// The secrets smsupd handles: OpenSM's sm_key, m_key and sa_key (from
// sm.sm_key_file, sm.m_key_file, sm.sa_key_file). Their values never reach an
// output, a log line, an event or a file others can read: every place that
// shows an option value or passes on a line OpenSM wrote goes through here.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace smsupd {

inline constexpr std::array<std::string_view, 3> kSecretOptions = {"sm_key", "m_key", "sa_key"};
inline constexpr std::string_view kRedacted = "<redacted>";

// True for the OpenSM option names above.
bool IsSecretOption(std::string_view name);

// `text` with the value that follows a secret option's name (as a word, any
// case: "sm_key 0x..", "m_key = 0x..", "SA_Key: 1234") replaced by
// <redacted>: for lines OpenSM prints or logs (option dumps, ERR 2F18).
std::string RedactSecrets(std::string_view text);

}  // namespace smsupd
