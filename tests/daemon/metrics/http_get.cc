#include "tests/daemon/metrics/http_get.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cstdio>

namespace smsupd {

namespace beast = boost::beast;
namespace http = beast::http;
using boost::asio::ip::tcp;

Result<std::string> HttpGet(int port, const std::string& target, std::chrono::milliseconds deadline) {
  try {
    boost::asio::io_context io;
    beast::tcp_stream stream(io);
    stream.expires_after(deadline);
    stream.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
    http::request<http::empty_body> request{http::verb::get, target, 11};
    request.set(http::field::host, "127.0.0.1");
    http::write(stream, request);
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response);
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    if (response.result() != http::status::ok)
      return Error{"GET " + target + ": HTTP " + std::to_string(response.result_int()) + ": " + response.body()};
    return response.body();
  } catch (const std::exception& error) {
    return Error{"GET 127.0.0.1:" + std::to_string(port) + target + ": " + error.what()};
  }
}

int FreeLoopbackPort() {
  boost::asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

std::string UrlEncode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

}  // namespace smsupd
