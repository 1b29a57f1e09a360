// A test-side model of how OpenSM 3.3.23 reads opensm.conf
// (osm_subnet.c: osm_subn_parse_conf_file and clean_val), so that the fuzzer
// can check what OpenSM will take from a rendered file:
// - lines come from fgets() into a 1024-byte buffer of which 1023 are
//   offered, so a line of more than 1022 bytes goes on as a line of its own;
// - the line is a C string: it ends at the first NUL;
// - everything from the first '#' on is a comment;
// - the key is the first word (delimited by space, tab or newline); the
//   value is the rest of the line with white space (isspace) trimmed at both
//   ends and one pair of surrounding double or single quotes removed.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace smsupd::fuzz {

// Every (key, value) OpenSM reads from `text`, in file order.
std::vector<std::pair<std::string, std::string>> ReadOpenSmConf(const std::string& text);

}  // namespace smsupd::fuzz
