// The generated option table behind opensm_options.h (internal).
#pragma once

#include <cstddef>

#include "config/opensm_options.h"

namespace smsupd::config {

extern const OpenSmOption kOpenSmOptions[];
extern const std::size_t kOpenSmOptionCount;

}  // namespace smsupd::config
