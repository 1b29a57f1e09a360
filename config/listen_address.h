// metrics.listen: "HOST:PORT" with an IPv4 address or a bracketed IPv6
// address ("127.0.0.1:9662", "[::1]:9662"). Host names are refused: what a
// name resolves to can change under a running daemon, and the loopback rule
// (docs/metrics.md) is decided on the address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace smsupd::config {

struct ListenAddress {
  std::string host;  // without brackets
  std::uint16_t port = 0;
  bool ipv6 = false;
  bool loopback = false;  // 127.0.0.0/8 or ::1

  // The form the HTTP listener binds: "127.0.0.1:9662", "[::1]:9662".
  std::string BindText() const;
};

// The packaged units allow IP only to and from localhost (IPAddressDeny=any,
// IPAddressAllow=localhost): a listener on another address needs this
// drop-in (smsupd@NAME.service.d/ for an instance), docs/systemd.md
// "A remote metrics listener".
inline constexpr const char* kMetricsDropInPath = "/etc/systemd/system/smsupd.service.d/metrics-listen.conf";

// nullopt when `text` is not HOST:PORT as above (port 1..65535).
std::optional<ListenAddress> ParseListenAddress(std::string_view text);

}  // namespace smsupd::config
