// JSON from outside (a control request line, a reply smctl reads, a file a
// generation keeps) made safe at the edge where it enters: parsed with its
// nesting bounded, so nothing after the parse (copies, dumps, destructors,
// all recursive in nlohmann::json) can recurse as deep as the input.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace smsupd {

// Arrays and objects nested deeper than this are refused. The control
// protocol's deepest message (a status reply) nests 5 levels; a request 3.
inline constexpr int kMaxJsonDepth = 32;

// The error of a text that is not JSON at all (as opposed to too deep).
inline constexpr char kNotJsonError[] = "is not valid JSON";

// Parses `text` as one JSON value whose arrays and objects nest at most
// `max_depth` levels (the top-level value is level 1). Never throws, never
// recurses: nlohmann's parser keeps its own stack, and a value past the bound
// is dropped while it is read, so memory stays linear in the text.
// Errors: "is not valid JSON" (for any syntax error, however deep) or, for
// valid JSON only, "nests deeper than N levels".
Result<nlohmann::json> ParseBoundedJson(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace smsupd
