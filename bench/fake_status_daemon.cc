// A stand-in daemon for bench/status_latency.sh --self: the real
// ControlServer with a handler that answers `status` from a canned
// StatusWire. Measures the control channel alone, without OpenSM or MADs.
//
//   fake_status_daemon SOCKET     (runs until SIGINT/SIGTERM)
#include <csignal>
#include <cstdio>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "daemon/control/control_server.h"
#include "common/control_wire.h"

namespace {

using namespace smsupd::control;

class CannedStatusHandler : public CommandHandler {
 public:
  CannedStatusHandler() {
    status_.node = "bench";
    status_.local_sm = {"MASTER", 15, 0x0002c90300a1b2c3, 1, 4242};
    status_.opensm = {4242, 3600, 0, 0x0002c90300a1b2c3};
    status_.master = MasterWire{0x0002c90300a1b2c3, 1, 15, "bench"};
    status_.sms = {{0x0002c90300a1b2c3, 1, "MASTER", 15, "bench"},
                   {0x0002c90300a1b2d4, 7, "STANDBY", 5, "bench-b"}};
    status_.config = {1, "sha256:0"};
  }
  void Handle(const Request& request, const Caller&, Reply reply) override {
    if (request.command == "status") return reply(MakeResponse(ResultCode::kSuccess, "", ToJson(status_)));
    reply(MakeResponse(ResultCode::kUnsupported, "not in the bench daemon"));
  }

 private:
  StatusWire status_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SOCKET\n", argv[0]);
    return 2;
  }
  boost::asio::io_context io;
  CannedStatusHandler handler;
  smsupd::EventLog events;
  ControlServerOptions options;
  options.socket_path = argv[1];
  options.daemon_version = "fake_status_daemon";
  ControlServer server(io, options, handler, events);
  if (auto status = server.Start(); !status) {
    std::fprintf(stderr, "%s\n", status.message().c_str());
    return 1;
  }
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) {
    server.Stop();
    io.stop();
  });
  io.run();
  return 0;
}
