#include "common/json_fields.h"

#include "common/printable_text.h"

namespace smsupd::control {

std::string Describe(const nlohmann::json& value) {
  return CutText(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 40);
}

}  // namespace smsupd::control
