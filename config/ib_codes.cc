#include "config/ib_codes.h"

#include <iba/ib_types.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace smsupd::config {
namespace {

const std::vector<std::pair<double, int>>& RateTable() {
  static const std::vector<std::pair<double, int>> table = [] {
    std::vector<std::pair<double, int>> rates = {
        {2.5, IB_PATH_RECORD_RATE_2_5_GBS}, {10, IB_PATH_RECORD_RATE_10_GBS},
        {30, IB_PATH_RECORD_RATE_30_GBS},   {5, IB_PATH_RECORD_RATE_5_GBS},
        {20, IB_PATH_RECORD_RATE_20_GBS},   {40, IB_PATH_RECORD_RATE_40_GBS},
        {60, IB_PATH_RECORD_RATE_60_GBS},   {80, IB_PATH_RECORD_RATE_80_GBS},
        {120, IB_PATH_RECORD_RATE_120_GBS}, {14, IB_PATH_RECORD_RATE_14_GBS},
        {56, IB_PATH_RECORD_RATE_56_GBS},   {112, IB_PATH_RECORD_RATE_112_GBS},
        {168, IB_PATH_RECORD_RATE_168_GBS}, {25, IB_PATH_RECORD_RATE_25_GBS},
        {100, IB_PATH_RECORD_RATE_100_GBS}, {200, IB_PATH_RECORD_RATE_200_GBS},
        {300, IB_PATH_RECORD_RATE_300_GBS}, {28, IB_PATH_RECORD_RATE_28_GBS},
        {50, IB_PATH_RECORD_RATE_50_GBS},   {400, IB_PATH_RECORD_RATE_400_GBS},
        {600, IB_PATH_RECORD_RATE_600_GBS}};
    std::sort(rates.begin(), rates.end());
    return rates;
  }();
  return table;
}

}  // namespace

std::optional<int> MtuCode(int bytes) {
  switch (bytes) {
    case 256:
      return IB_MTU_LEN_256;
    case 512:
      return IB_MTU_LEN_512;
    case 1024:
      return IB_MTU_LEN_1024;
    case 2048:
      return IB_MTU_LEN_2048;
    case 4096:
      return IB_MTU_LEN_4096;
    default:
      return std::nullopt;
  }
}

std::optional<int> RateCode(double gbps) {
  for (const auto& [rate, code] : RateTable())
    if (std::fabs(rate - gbps) < 1e-9) return code;
  return std::nullopt;
}

std::string KnownRatesText() {
  std::string text;
  char buffer[16];
  for (const auto& [rate, code] : RateTable()) {
    std::snprintf(buffer, sizeof buffer, "%g", rate);
    if (!text.empty()) text += ", ";
    text += buffer;
  }
  return text;
}

}  // namespace smsupd::config
