// A link's rate as a port map writes it ("4xHDR") and as PortInfo reports
// it (LinkWidthActive lanes x LinkSpeedActive/LinkSpeedExtActive).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace smsupd::config {

struct LinkRate {
  int lanes = 0;           // 1, 2, 4, 8 or 12
  std::string speed;       // SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR
  double lane_gbps = 0;    // the speed's data rate per lane

  double Gbps() const { return lanes * lane_gbps; }
  std::string Text() const;  // "4xHDR"
};

// "4xHDR", "1xSDR", "12xEDR" (case-insensitive); nullopt otherwise.
std::optional<LinkRate> ParseLinkRate(std::string_view text);

// True when `active` carries less data than `declared`: a link trained
// below what the port map says (fewer lanes or a slower speed).
bool BelowRate(const LinkRate& active, const LinkRate& declared);

}  // namespace smsupd::config
