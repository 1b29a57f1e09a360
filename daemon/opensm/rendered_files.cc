#include "daemon/opensm/rendered_files.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/atomic_file.h"

namespace smsupd {
namespace {

std::string ModeText(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace

Status PrepareStateDirectory(const std::string& state_dir) {
  if (::mkdir(state_dir.c_str(), 0700) == 0) return Status::Ok();
  if (errno != EEXIST) return Error{"cannot create " + state_dir + ": " + std::strerror(errno)};
  struct stat info {};
  if (::lstat(state_dir.c_str(), &info) != 0)
    return Error{"cannot inspect " + state_dir + ": " + std::strerror(errno)};
  if (!S_ISDIR(info.st_mode)) return Error{"state_dir " + state_dir + " is not a directory"};
  if (info.st_uid != ::geteuid())
    return Error{"state_dir " + state_dir + " is owned by uid " + std::to_string(info.st_uid) +
                 ", not by smsupd's uid " + std::to_string(::geteuid()) + "; refusing to use it"};
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return Error{"state_dir " + state_dir + " is writable by others (mode " +
                 ModeText(info.st_mode) + "); refusing to use it: make it 0700"};
  if ((info.st_mode & 0077) != 0) {
    if (::chmod(state_dir.c_str(), 0700) != 0)
      return Error{"cannot make " + state_dir + " mode 0700: " + std::strerror(errno)};
    spdlog::warn("STATE_DIR_MODE_FIXED {} was mode {}; now 0700 (it holds the SM_Key)", state_dir,
                 ModeText(info.st_mode));
  }
  return Status::Ok();
}

Result<std::string> WriteRenderedConfig(const config::Config& config, Guid port_guid,
                                        std::optional<int> sm_priority, const std::map<Guid, Guid>& node_of_port) {
  StatePaths paths{config.state_dir};
  if (::mkdir(paths.state_dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Error{"cannot create " + paths.state_dir + ": " + std::strerror(errno)};
  config::RenderedFiles files = RenderConfig(config, port_guid, sm_priority, node_of_port);
  Status written = config::WriteRenderedFiles(files, paths.PartitionsConf(), paths.OpenSmConf());
  if (!written) return Error{written.message()};
  return files.config_hash;
}

config::RenderedFiles RenderConfig(const config::Config& config, Guid port_guid,
                                   std::optional<int> sm_priority, const std::map<Guid, Guid>& node_of_port) {
  config::RenderInputs inputs;
  inputs.port_guid = port_guid;
  inputs.partitions_path = StatePaths{config.state_dir}.PartitionsConf();
  inputs.sm_priority = sm_priority;
  inputs.node_of_port = node_of_port;
  return config::Render(config, inputs);
}

}  // namespace smsupd
