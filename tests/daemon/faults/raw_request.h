// One raw protocol line sent to a control socket by a forked client with
// dropped credentials: how the fault tests speak as a group member or a
// stranger without smctl (whose requests are always well formed).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace smsupd::testbed::faults {

// One request line sent by a forked client running as `uid`/`gid` with
// `groups`, and the reply line ("" when none came within 10 s; "connect: ..."
// when the socket refused the connection).
std::string RawRequestAs(uid_t uid, gid_t gid, const std::vector<gid_t>& groups,
                         const std::string& socket_path, const std::string& line);

}  // namespace smsupd::testbed::faults
