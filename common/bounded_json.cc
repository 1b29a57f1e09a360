#include "common/bounded_json.h"

#include <string>

namespace smsupd {

Result<nlohmann::json> ParseBoundedJson(std::string_view text, int max_depth) {
  using nlohmann::json;
  // nlohmann's reader takes a NUL for the end of the text: "{}\0<anything>"
  // would pass. A JSON text holds no raw NUL.
  if (text.find('\0') != std::string_view::npos) return Error{kNotJsonError};
  bool too_deep = false;
  // `depth` is the number of enclosing arrays and objects of the value the
  // event is about; a refused container is not built, nor anything in it.
  json::parser_callback_t bound = [&](int depth, json::parse_event_t event, json&) {
    const bool opens = event == json::parse_event_t::object_start ||
                       event == json::parse_event_t::array_start;
    if (opens && depth >= max_depth) too_deep = true;
    return !too_deep;
  };
  json parsed = json::parse(text, bound, /*allow_exceptions=*/false);
  // A syntax error anywhere wins: "too deep" is said only of valid JSON
  // (accept() builds nothing and keeps its own stack).
  if (too_deep && json::accept(text))
    return Error{"nests deeper than " + std::to_string(max_depth) + " levels"};
  if (too_deep || parsed.is_discarded()) return Error{kNotJsonError};
  return parsed;
}

}  // namespace smsupd
