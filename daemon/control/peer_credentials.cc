#include "daemon/control/peer_credentials.h"

#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

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

namespace {

std::optional<std::vector<gid_t>> ProcGroups(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  if (!status) return std::nullopt;
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Groups:", 0) != 0) continue;
    std::istringstream fields(line.substr(7));
    std::vector<gid_t> groups;
    unsigned long gid;
    while (fields >> gid) groups.push_back(static_cast<gid_t>(gid));
    return groups;
  }
  return std::nullopt;
}

std::vector<gid_t> DatabaseGroups(uid_t uid, gid_t gid) {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) != 0 || !found) return {};
  int count = 64;
  std::vector<gid_t> groups(count);
  if (getgrouplist(found->pw_name, gid, groups.data(), &count) < 0) {
    groups.resize(count);
    if (getgrouplist(found->pw_name, gid, groups.data(), &count) < 0) return {};
  }
  groups.resize(count);
  return groups;
}

}  // namespace

std::vector<gid_t> PeerGroups(const PeerIdentity& peer) {
  if (auto groups = ProcGroups(peer.pid)) return *groups;
  return DatabaseGroups(peer.uid, peer.gid);
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
    if (access != AccessLevel::kFull)
      access = DecideAccess(*peer, PeerGroups(*peer), geteuid(), LookupGroup(control_group));
    return Caller{peer->pid, peer->uid, peer->gid, access};
  };
}

}  // namespace smsupd::control
