#include "config/cabling_rate.h"

#include <array>
#include <cctype>
#include <utility>

namespace smsupd::config {
namespace {

// Data rate per lane after encoding (IBA vol. 2: 8b/10b up to QDR, 64b/66b
// from FDR10, PAM4 from HDR).
constexpr std::array<std::pair<const char*, double>, 9> kSpeeds = {{{"SDR", 2.0},
                                                                    {"DDR", 4.0},
                                                                    {"QDR", 8.0},
                                                                    {"FDR10", 9.7},
                                                                    {"FDR", 13.64},
                                                                    {"EDR", 25.0},
                                                                    {"HDR", 50.0},
                                                                    {"NDR", 100.0},
                                                                    {"XDR", 200.0}}};

}  // namespace

std::string LinkRate::Text() const { return std::to_string(lanes) + "x" + speed; }

std::optional<LinkRate> ParseLinkRate(std::string_view text) {
  std::size_t x = text.find_first_of("xX");
  if (x == 0 || x == std::string_view::npos || x > 2) return std::nullopt;
  int lanes = 0;
  for (char c : text.substr(0, x)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    lanes = lanes * 10 + (c - '0');
  }
  if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 12) return std::nullopt;
  std::string speed;
  for (char c : text.substr(x + 1)) speed += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& [name, gbps] : kSpeeds)
    if (speed == name) return LinkRate{lanes, speed, gbps};
  return std::nullopt;
}

bool BelowRate(const LinkRate& active, const LinkRate& declared) {
  return active.Gbps() + 1e-9 < declared.Gbps();
}

}  // namespace smsupd::config
