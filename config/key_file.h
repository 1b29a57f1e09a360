// The key files of smsupd.yaml: sm.sm_key_file, sm.m_key_file and
// sm.sa_key_file, each holding one 64-bit key (docs/config-reference.md
// "Keys"). The keys never live in smsupd.yaml itself, so that file stays
// readable (by `smsupd --check`, a review, an Ansible --diff) while the
// keys stay root's.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "common/result.h"
#include "config/config.h"

namespace smsupd::config {

// The largest key file read: one key and a newline, with room for stray
// white space. A bigger file is refused unread.
inline constexpr off_t kMaxKeyFileBytes = 4096;

// Opens `path` once, without following a symbolic link and without
// blocking (O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_NOCTTY|O_CLOEXEC: a FIFO is
// refused at once, never waited on, and a terminal never becomes smsupd's),
// then checks the opened file, not the path: a regular file, owned by root
// or by the uid smsupd runs as, no group or other permission bits, at most
// kMaxKeyFileBytes; then reads it from that same descriptor. It must hold "0x" and 1 to 16 hex digits, white space
// around it allowed. An Error says what is wrong, and `fix` how to put it
// right; neither ever holds any of the file's content.
Result<std::uint64_t> ReadKeyFile(const std::string& path, std::string& fix);

// For `next` validated with KeyFile::kNameOnly (its key files named, not
// read): each key file it names is taken to hold the key `running` holds,
// so a plan shows a key change only as a changed or removed file name.
void AssumeRunningKeys(const Config& running, Config& next);

}  // namespace smsupd::config
