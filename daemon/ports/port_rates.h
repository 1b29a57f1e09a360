// Link widths and speeds as PortInfo reports them (IBA 14.2.5.6 bit masks)
// turned into rates an operator reads ("4xHDR"), and the rate a link could
// train at.
#pragma once

#include <optional>
#include <string>

#include "config/cabling_rate.h"
#include "daemon/fabric/fabric.h"

namespace smsupd {

// Lanes of one LinkWidth bit (1 -> 1, 2 -> 4, 4 -> 8, 8 -> 12, 16 -> 2); 0 if none.
int WidthLanes(int width_bit);
// "1x,4x" for a LinkWidth mask; "" for 0.
std::string WidthsText(int mask);
// "SDR,DDR,QDR,FDR,EDR" for a speed mask and its extended speed mask.
std::string SpeedsText(int mask, int ext_mask);

// The rate the port's link trained at: LinkWidthActive x the extended speed
// when one is active, else LinkSpeedActive. nullopt when either is not a
// single known value (a port that is not up).
std::optional<config::LinkRate> ActiveRate(const PortInfo& info);

// The fastest rate both ends support: the widest width and the fastest
// speed in both ends' supported masks. nullopt when they share none.
std::optional<config::LinkRate> BestCommonRate(const PortInfo& a, const PortInfo& b);

}  // namespace smsupd
