// The real ProcessLauncher: fork + execve, stdout/stderr read through pipes
// line by line, exit seen through a pidfd (pidfd_open(2)) that the Asio
// reactor waits on, so a crash is noticed at once without SIGCHLD handling.
#pragma once

#include <boost/asio/io_context.hpp>

#include "daemon/process/process.h"

namespace smsupd {

class PidfdProcessLauncher : public ProcessLauncher {
 public:
  explicit PidfdProcessLauncher(boost::asio::io_context& io) : io_(io) {}

  Result<std::unique_ptr<WatchedProcess>> Spawn(const SpawnRequest& request,
                                                ProcessCallbacks callbacks) override;
  Result<std::unique_ptr<WatchedProcess>> Adopt(pid_t pid, ProcessCallbacks callbacks) override;

 private:
  boost::asio::io_context& io_;
};

}  // namespace smsupd
