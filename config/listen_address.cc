#include "config/listen_address.h"

#include <arpa/inet.h>

#include <charconv>

namespace smsupd::config {

std::string ListenAddress::BindText() const {
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::optional<ListenAddress> ParseListenAddress(std::string_view text) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == text.size()) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (error != std::errc() || end != port_text.data() + port_text.size() || port == 0 || port > 65535)
    return std::nullopt;
  ListenAddress address;
  address.port = static_cast<std::uint16_t>(port);
  address.ipv6 = host.size() > 2 && host.front() == '[' && host.back() == ']';
  address.host = std::string(address.ipv6 ? host.substr(1, host.size() - 2) : host);
  if (address.ipv6) {
    in6_addr v6{};
    if (inet_pton(AF_INET6, address.host.c_str(), &v6) != 1) return std::nullopt;
    address.loopback = IN6_IS_ADDR_LOOPBACK(&v6);
  } else {
    in_addr v4{};
    if (inet_pton(AF_INET, address.host.c_str(), &v4) != 1) return std::nullopt;
    address.loopback = (ntohl(v4.s_addr) >> 24) == 127;
  }
  return address;
}

}  // namespace smsupd::config
