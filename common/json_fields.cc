#include "common/json_fields.h"

namespace smsupd::control {

std::string Describe(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

}  // namespace smsupd::control
