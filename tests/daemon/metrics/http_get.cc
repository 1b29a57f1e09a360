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

// Asynchronous calls run to completion on a private io_context: a
// tcp_stream's expiry applies to asynchronous operations only, and the
// deadline must hold against a server that accepts and never answers.
Result<std::string> HttpGet(int port, const std::string& target, std::chrono::milliseconds deadline) {
  const std::string what = "GET 127.0.0.1:" + std::to_string(port) + target + ": ";
  boost::asio::io_context io;
  beast::tcp_stream stream(io);
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1");
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  beast::error_code failure;
  stream.expires_after(deadline);
  const tcp::endpoint server(boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port));
  stream.async_connect(server, [&](beast::error_code error) {
    if (error) return void(failure = error);
    http::async_write(stream, request, [&](beast::error_code error, std::size_t) {
      if (error) return void(failure = error);
      http::async_read(stream, buffer, response, [&](beast::error_code error, std::size_t) { failure = error; });
    });
  });
  io.run();
  if (failure) return Error{what + failure.message()};
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  if (response.result() != http::status::ok)
    return Error{"GET " + target + ": HTTP " + std::to_string(response.result_int()) + ": " + response.body()};
  return response.body();
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
