// A plain HTTP GET for tests (Boost.Beast): /metrics of a daemon and
// Prometheus' query API, on loopback only.
#pragma once

#include <chrono>
#include <string>

#include "common/result.h"

namespace smsupd {

// The body of GET http://127.0.0.1:<port><target>; an error for no answer
// within `deadline` or a status other than 200.
Result<std::string> HttpGet(int port, const std::string& target,
                            std::chrono::milliseconds deadline = std::chrono::milliseconds(5000));

// A TCP port on 127.0.0.1 nobody listens on right now.
int FreeLoopbackPort();

// "a b" -> "a%20b" (query strings).
std::string UrlEncode(const std::string& text);

}  // namespace smsupd
