// Where smsupd's log goes: the journal when systemd started it (JOURNAL_STREAM
// or INVOCATION_ID in the environment), stderr otherwise.
//
// Lines operators grep for start with a stable ID in capitals
// (OPENSM_STARTED, CONFIG_APPLIED, ...; catalogue: docs/log-messages.md). In
// the journal that ID is also a field of its own, SMSUPD_MESSAGE_ID, so
// `journalctl SMSUPD_MESSAGE_ID=OPENSM_EXITED` finds them.
#pragma once

#include <string_view>

namespace smsupd {

enum class LogTarget { kStderr, kJournal };

// kJournal when the environment says systemd runs us.
LogTarget DetectLogTarget();

// Installs the default spdlog logger for `target`; `instance` (the node name)
// goes into every line so that several smsupd on one machine stay apart.
void SetUpLogging(LogTarget target, std::string_view instance);

// The leading stable ID of a message ("OPENSM_EXITED pid ..." ->
// "OPENSM_EXITED"), or empty when the message has none.
std::string_view MessageId(std::string_view message);

}  // namespace smsupd
