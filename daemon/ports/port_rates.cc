#include "daemon/ports/port_rates.h"

#include <array>
#include <utility>

namespace smsupd {
namespace {

// LinkWidth bits in order of lanes.
constexpr std::array<std::pair<int, int>, 5> kWidths = {{{1, 1}, {16, 2}, {2, 4}, {4, 8}, {8, 12}}};
// LinkSpeed bits (SDR..QDR) and LinkSpeedExt bits (FDR..NDR), slowest first.
constexpr std::array<std::pair<int, const char*>, 3> kSpeeds = {{{1, "SDR"}, {2, "DDR"}, {4, "QDR"}}};
constexpr std::array<std::pair<int, const char*>, 4> kExtSpeeds = {{{1, "FDR"}, {2, "EDR"}, {4, "HDR"}, {8, "NDR"}}};

std::optional<config::LinkRate> Rate(int lanes, const char* speed) {
  if (lanes == 0 || speed == nullptr) return std::nullopt;
  return config::ParseLinkRate(std::to_string(lanes) + "x" + speed);
}

const char* SpeedOf(int bit, bool extended) {
  if (extended) {
    for (const auto& [b, name] : kExtSpeeds)
      if (b == bit) return name;
  } else {
    for (const auto& [b, name] : kSpeeds)
      if (b == bit) return name;
  }
  return nullptr;
}

// The fastest speed in both masks (extended first).
const char* FastestCommon(int speeds, int ext_speeds) {
  for (auto it = kExtSpeeds.rbegin(); it != kExtSpeeds.rend(); ++it)
    if (ext_speeds & it->first) return it->second;
  for (auto it = kSpeeds.rbegin(); it != kSpeeds.rend(); ++it)
    if (speeds & it->first) return it->second;
  return nullptr;
}

}  // namespace

int WidthLanes(int width_bit) {
  for (const auto& [bit, lanes] : kWidths)
    if (bit == width_bit) return lanes;
  return 0;
}

std::string WidthsText(int mask) {
  std::string text;
  for (const auto& [bit, lanes] : kWidths)
    if (mask & bit) text += (text.empty() ? "" : ",") + std::to_string(lanes) + "x";
  return text;
}

std::string SpeedsText(int mask, int ext_mask) {
  std::string text;
  for (const auto& [bit, name] : kSpeeds)
    if (mask & bit) text += (text.empty() ? "" : ",") + std::string(name);
  for (const auto& [bit, name] : kExtSpeeds)
    if (ext_mask & bit) text += (text.empty() ? "" : ",") + std::string(name);
  return text;
}

std::optional<config::LinkRate> ActiveRate(const PortInfo& info) {
  const int lanes = WidthLanes(info.link_width_active);
  const char* speed = info.link_speed_ext_active != 0 ? SpeedOf(info.link_speed_ext_active, true)
                                                      : SpeedOf(info.link_speed_active, false);
  return Rate(lanes, speed);
}

std::optional<config::LinkRate> BestCommonRate(const PortInfo& a, const PortInfo& b) {
  const int widths = a.link_width_supported & b.link_width_supported;
  int lanes = 0;
  for (const auto& [bit, width_lanes] : kWidths)
    if (widths & bit) lanes = width_lanes;
  return Rate(lanes, FastestCommon(a.link_speed_supported & b.link_speed_supported,
                                   a.link_speed_ext_supported & b.link_speed_ext_supported));
}

}  // namespace smsupd
