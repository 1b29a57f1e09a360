#include "daemon/control/peer_credentials.h"

#include <grp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace smsupd::control {

const char* AccessLevelName(AccessLevel level) {
  switch (level) {
    case AccessLevel::kNone: return "none";
    case AccessLevel::kReadOnly: return "read-only";
    case AccessLevel::kFull: return "full";
  }
  return "none";
}

Result<PeerIdentity> ReadPeerIdentity(int fd) {
  ucred credentials{};
  socklen_t length = sizeof credentials;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0)
    return Error{std::string("cannot read peer credentials: ") + std::strerror(errno)};
  return PeerIdentity{credentials.pid, credentials.uid, credentials.gid};
}

Result<std::vector<gid_t>> ReadPeerGroups(int fd) {
  std::vector<gid_t> groups(64);
  for (int attempt = 0; attempt < 2; ++attempt) {
    socklen_t length = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &length) == 0) {
      groups.resize(length / sizeof(gid_t));
      return groups;
    }
    if (errno != ERANGE) break;
    groups.resize(length / sizeof(gid_t) + 1);  // the kernel says how many it has
  }
  return Error{std::string("cannot read the peer's groups: ") + std::strerror(errno)};
}

AccessLevel DecideAccess(const PeerIdentity& peer, const std::vector<gid_t>& groups,
                         uid_t daemon_uid, std::optional<gid_t> control_gid) {
  if (peer.uid == 0 || peer.uid == daemon_uid) return AccessLevel::kFull;
  if (!control_gid) return AccessLevel::kNone;
  if (peer.gid == *control_gid) return AccessLevel::kReadOnly;
  if (std::find(groups.begin(), groups.end(), *control_gid) != groups.end())
    return AccessLevel::kReadOnly;
  return AccessLevel::kNone;
}

std::optional<gid_t> LookupGroup(const std::string& name) {
  if (name.empty()) return std::nullopt;
  group entry{};
  group* found = nullptr;
  std::vector<char> buffer(16384);
  if (getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 || !found)
    return std::nullopt;
  return found->gr_gid;
}

PeerAuthenticator SystemPeerAuthenticator(std::string control_group) {
  return [control_group = std::move(control_group)](int fd) -> Result<Caller> {
    auto peer = ReadPeerIdentity(fd);
    if (!peer) return peer.error();
    // Root and the daemon's own user need no group look-ups (the common,
    // latency-sensitive case: /proc and the group database are read per call).
    AccessLevel access = DecideAccess(*peer, {}, geteuid(), std::nullopt);
    if (access != AccessLevel::kFull) {
      auto groups = ReadPeerGroups(fd);
      if (!groups) return groups.error();
      access = DecideAccess(*peer, *groups, geteuid(), LookupGroup(control_group));
    }
    return Caller{peer->pid, peer->uid, peer->gid, access};
  };
}

}  // namespace smsupd::control
