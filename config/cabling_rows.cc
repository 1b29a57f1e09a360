#include "config/cabling_rows.h"

#include "common/guid.h"
#include "config/cabling_rate.h"

namespace smsupd::config {
namespace {

bool Printable(std::string_view text) {
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

const CablingCell* Find(const CablingRow& row, const std::string& name) {
  auto it = row.cells.find(name);
  return it == row.cells.end() ? nullptr : &it->second;
}

}  // namespace

void CablingRowChecker::Error(int line, int column, const std::string& path, std::string what,
                              std::string valid) {
  if (parse_.diagnostics.size() >= kMaxCablingDiagnostics) return;
  parse_.diagnostics.push_back(
      Diagnostic{Severity::kError, file_, line, column, path, std::move(what), std::move(valid)});
}

// At the cell `name` when the row has it, else at the row.
void CablingRowChecker::ErrorAt(const CablingRow& row, const std::string& name, std::string what,
                                std::string valid) {
  const CablingCell* cell = Find(row, name);
  std::string path = row.path.empty() ? "" : row.path + "." + name;
  if (cell == nullptr)
    Error(row.line, row.column, row.path, std::move(what), std::move(valid));
  else
    Error(cell->line, cell->column, path, std::move(what), std::move(valid));
}

void CablingRowChecker::Check(const CablingRow& row) {
  DeclaredCable cable;
  cable.line = row.line;
  // Both ends are checked, so both ends' errors are reported.
  const bool switch_end_good = End(row, "switch", &cable.a);
  const bool peer_end_good = End(row, "peer", &cable.b);
  bool good = switch_end_good && peer_end_good;
  cable.cable_type = Text(row, "cable_type", &good);
  cable.length = Text(row, "length", &good);
  cable.rate = Text(row, "rate", &good);
  if (!cable.rate.empty() && !ParseLinkRate(cable.rate)) {
    ErrorAt(row, "rate", "rate '" + cable.rate + "' is not a link rate", "width x speed, e.g. 4xHDR, 4xNDR, 1xEDR");
    good = false;
  }
  if (good) Claim(row, cable);
}

// The cell `name` ("" when absent); *good false when it is too long or
// holds control characters.
std::string CablingRowChecker::Text(const CablingRow& row, const std::string& name, bool* good) {
  const CablingCell* cell = Find(row, name);
  if (cell == nullptr) return "";
  if (cell->text.size() > kMaxCablingFieldBytes || !Printable(cell->text)) {
    ErrorAt(row, name, name + " is not a name", "at most 256 printable bytes");
    *good = false;
    return "";
  }
  return cell->text;
}

// Reads `side` ("switch" or "peer"): name, optional GUID, port.
bool CablingRowChecker::End(const CablingRow& row, const std::string& side, CableEnd* end) {
  bool good = true;
  end->device = Text(row, side, &good);
  if (good && end->device.empty()) {
    ErrorAt(row, side, side + " is empty", "the device's name");
    good = false;
  }
  std::string guid = Text(row, side + "_guid", &good);
  if (!guid.empty()) {
    end->node_guid = ParseGuid(guid);
    if (!end->node_guid || *end->node_guid == 0) {
      ErrorAt(row, side + "_guid", "'" + guid + "' is not a node GUID", "0x and 1-16 hex digits, not zero");
      good = false;
    }
  }
  std::string port = Text(row, side + "_port", &good);
  end->port = 0;
  if (port.size() <= 3 && !port.empty() && port.find_first_not_of("0123456789") == std::string::npos)
    end->port = std::stoi(port);
  if (end->port < 1 || end->port > kMaxSwitchPort) {
    ErrorAt(row, side + "_port", side + "_port '" + port + "' is not a port",
            "a port number 1.." + std::to_string(kMaxSwitchPort));
    good = false;
  }
  return good;
}

// One row per port, one GUID per name.
void CablingRowChecker::Claim(const CablingRow& row, const DeclaredCable& cable) {
  if (parse_.cables.size() >= kMaxCables) {
    Error(row.line, row.column, row.path, "more than " + std::to_string(kMaxCables) + " cables",
          "split the fabric's files");
    return;
  }
  for (const CableEnd* end : {&cable.a, &cable.b}) {
    auto [it, fresh] = ports_.emplace(std::make_pair(end->device, end->port), cable.line);
    if (!fresh)
      Error(row.line, row.column, row.path,
            end->device + " port " + std::to_string(end->port) + " is already cabled on line " +
                std::to_string(it->second),
            "one row per cable, each port in one row");
    if (!end->node_guid) continue;
    auto [guid, first] = guids_.emplace(end->device, std::make_pair(*end->node_guid, cable.line));
    if (!first && guid->second.first != *end->node_guid)
      Error(row.line, row.column, row.path,
            end->device + " has node GUID " + FormatGuid(*end->node_guid) + " here but " +
                FormatGuid(guid->second.first) + " on line " + std::to_string(guid->second.second),
            "one GUID per device");
    auto [owner, new_guid] = owners_.emplace(*end->node_guid, std::make_pair(end->device, cable.line));
    if (!new_guid && owner->second.first != end->device)
      Error(row.line, row.column, row.path,
            "node GUID " + FormatGuid(*end->node_guid) + " is " + owner->second.first + "'s on line " +
                std::to_string(owner->second.second) + ", here " + end->device,
            "one device per GUID");
  }
  parse_.cables.push_back(cable);
}

}  // namespace smsupd::config
