// `smctl import --check`: the imported YAML against the files it came from,
// port by port (docs/import.md "What --check compares"). The ports are
// every GUID partitions.conf names (taken as CA ports), the SM's port
// (opensm.conf's guid, or a stand-in), and one stand-in port no GUID names
// for each node type (CA, switch, router): every port of a fabric is one of
// these classes as far as the files can tell. The files' side replays
// OpenSM's reading line by line on those concrete ports; the YAML's side is
// the product rule (ExpectedPKeyEntries() of the validated YAML).
#pragma once

#include <string>
#include <vector>

#include "config/opensm_import.h"
#include "config/pkey_tables.h"

namespace smsupd::config {

struct ImportCheck {
  std::size_t ports = 0;                 // compared
  std::vector<std::string> differences;  // one line per differing port; empty: equal
  std::string invalid;                   // not compared: the YAML did not validate, or too large
};

// The ports compared, as FabricPorts (is_sm_port on the SM's).
std::vector<FabricPort> ImportCheckPorts(const ImportInputs& inputs);

// Port GUID -> 16-bit entries (bit 15 full) that OpenSM programs from the
// files, over `ports`.
std::map<Guid, std::set<std::uint16_t>> OpenSmTablesFromFiles(const ImportInputs& inputs,
                                                              const std::vector<FabricPort>& ports);

// `imported`: ImportOpenSm(inputs); its validated config is compared.
ImportCheck CheckImport(const ImportInputs& inputs, const ImportResult& imported);

}  // namespace smsupd::config
