// A linked, Active port as the walk reads it (4X at 10 Gb/s, 1X/4X and up
// to 10 Gb/s supported), for the ports tests and bench/ports_reply_bench.cc.
#pragma once

#include <cstdint>

#include "daemon/fabric/fabric.h"

namespace smsupd {

inline PortInfo ActivePortInfo(uint16_t lid = 0) {
  PortInfo info;
  info.lid = lid;
  info.sm_lid = 1;
  info.port_state = kPortStateActive;
  info.phys_state = 5;
  info.link_width_active = info.link_width_enabled = 2;
  info.link_width_supported = 3;
  info.link_speed_active = info.link_speed_enabled = 4;
  info.link_speed_supported = 7;
  return info;
}

}  // namespace smsupd
