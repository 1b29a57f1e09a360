#include "common/json_fields.h"

namespace smsupd::control {

std::string Describe(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() <= 40) return text;
  // Cut on a character boundary: half a UTF-8 sequence would turn into
  // U+FFFD in the JSON reply that carries the message.
  std::size_t cut = 37;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

}  // namespace smsupd::control
