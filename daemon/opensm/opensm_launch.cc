#include "daemon/opensm/opensm_launch.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string_view>

extern char** environ;

namespace smsupd {
namespace {

// Variables systemd hands to the service itself (sd_notify(3), sd_listen_fds(3)).
constexpr std::string_view kServiceManagerVariables[] = {
    "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
};
// Replaced by our own values.
constexpr std::string_view kOpenSmVariables[] = {"OSM_TMP_DIR", "OSM_CACHE_DIR"};

bool NameIn(std::string_view entry, const auto& names) {
  std::string_view name = entry.substr(0, entry.find('='));
  for (std::string_view candidate : names)
    if (name == candidate) return true;
  return false;
}

Status MakeDirectory(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST) return Status::Ok();
  return Error{"cannot create " + path + ": " + std::strerror(errno)};
}

}  // namespace

std::vector<std::string> OpenSmEnvironment(const std::vector<std::string>& parent_env,
                                           const OpenSmLaunchSpec& spec) {
  std::vector<std::string> env;
  for (const auto& entry : parent_env) {
    if (NameIn(entry, kServiceManagerVariables) || NameIn(entry, kOpenSmVariables)) continue;
    env.push_back(entry);
  }
  env.push_back("OSM_TMP_DIR=" + spec.TmpDir());
  env.push_back("OSM_CACHE_DIR=" + spec.CacheDir());
  return env;
}

SpawnRequest OpenSmSpawnRequest(const OpenSmLaunchSpec& spec,
                                const std::vector<std::string>& parent_env) {
  SpawnRequest request;
  request.binary = spec.binary;
  request.args = {"-F", spec.conf_path};
  request.env = OpenSmEnvironment(parent_env, spec);
  request.cwd = spec.state_dir;
  return request;
}

Status PrepareOpenSmDirectories(const OpenSmLaunchSpec& spec) {
  for (const auto& dir : {spec.state_dir, spec.CacheDir(), spec.TmpDir()}) {
    Status made = MakeDirectory(dir);
    if (!made) return made;
  }
  return Status::Ok();
}

std::vector<std::string> CurrentEnvironment() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry; ++entry) env.emplace_back(*entry);
  return env;
}

}  // namespace smsupd
