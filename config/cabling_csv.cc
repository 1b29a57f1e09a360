#include "config/cabling_csv.h"

#include <array>
#include <map>
#include <utility>

#include "common/guid.h"
#include "config/cabling_rate.h"

namespace smsupd::config {
namespace {

constexpr std::array<const char*, 9> kColumns = {"switch",    "switch_guid", "switch_port",
                                                 "peer",      "peer_guid",   "peer_port",
                                                 "cable_type", "length",     "rate"};
constexpr std::array<const char*, 4> kRequired = {"switch", "switch_port", "peer", "peer_port"};

struct Field {
  std::string text;
  int column = 1;  // 1-based byte column of the field's start
};

// Splits one CSV line; nullopt (and *why) on an unterminated quote.
std::optional<std::vector<Field>> SplitLine(std::string_view line, std::string* why) {
  std::vector<Field> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c != '"') {
        fields.back().text += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        fields.back().text += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"' && fields.back().text.find_first_not_of(" \t") == std::string::npos) {
      fields.back().text.clear();
      quoted = true;
    } else if (c == ',') {
      fields.push_back(Field{"", static_cast<int>(i) + 2});
    } else {
      fields.back().text += c;
    }
  }
  if (quoted) {
    *why = "a quoted field is not closed";
    return std::nullopt;
  }
  for (Field& field : fields) {  // spreadsheets pad; names never start or end with blanks
    std::size_t first = field.text.find_first_not_of(" \t");
    std::size_t last = field.text.find_last_not_of(" \t");
    field.text = first == std::string::npos ? "" : field.text.substr(first, last - first + 1);
  }
  return fields;
}

bool Printable(std::string_view text) {
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

class Reader {
 public:
  explicit Reader(const std::string& file) : file_(file) {}

  void Error(int line, int column, std::string what, std::string valid = "") {
    if (parse_.diagnostics.size() >= kMaxCablingDiagnostics) return;
    parse_.diagnostics.push_back(
        Diagnostic{Severity::kError, file_, line, column, "", std::move(what), std::move(valid)});
  }

  bool Header(const std::vector<Field>& fields, int line) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      int known = -1;
      for (std::size_t k = 0; k < kColumns.size(); ++k)
        if (fields[i].text == kColumns[k]) known = static_cast<int>(k);
      if (known < 0) {
        Error(line, fields[i].column, "unknown column '" + fields[i].text + "'",
              "columns: switch, switch_guid, switch_port, peer, peer_guid, peer_port, cable_type, length, rate");
      } else if (index_.count(kColumns[known])) {
        Error(line, fields[i].column, "column '" + fields[i].text + "' given twice");
      } else {
        index_[kColumns[known]] = i;
      }
    }
    for (const char* name : kRequired)
      if (!index_.count(name)) Error(line, 1, std::string("the header has no column '") + name + "'",
                                     "required: switch, switch_port, peer, peer_port");
    return parse_.diagnostics.empty();
  }

  void Row(const std::vector<Field>& fields, int line) {
    if (fields.size() > index_.size() + 3) {  // a few empty trailing cells are a spreadsheet's habit
      Error(line, fields.back().column, std::to_string(fields.size()) + " fields",
            "at most the header's " + std::to_string(index_.size()));
      return;
    }
    DeclaredCable cable;
    cable.line = line;
    // `&`, not `&&`: both ends' errors are reported.
    bool good = End(fields, line, "switch", &cable.a) & End(fields, line, "peer", &cable.b);
    cable.cable_type = Text(fields, line, "cable_type", &good);
    cable.length = Text(fields, line, "length", &good);
    cable.rate = Text(fields, line, "rate", &good);
    if (!cable.rate.empty() && !ParseLinkRate(cable.rate)) {
      Error(line, Column(fields, "rate"), "rate '" + cable.rate + "' is not a link rate",
            "width x speed, e.g. 4xHDR, 4xNDR, 1xEDR");
      good = false;
    }
    if (good) Claim(cable);
  }

  CablingParse Take() { return std::move(parse_); }

 private:
  int Column(const std::vector<Field>& fields, const char* name) const {
    auto it = index_.find(name);
    return it != index_.end() && it->second < fields.size() ? fields[it->second].column : 1;
  }

  // The field of column `name` ("" when the column or the cell is absent);
  // *good false when it is too long or holds control characters.
  std::string Text(const std::vector<Field>& fields, int line, const char* name, bool* good) {
    auto it = index_.find(name);
    if (it == index_.end() || it->second >= fields.size()) return "";
    const Field& field = fields[it->second];
    if (field.text.size() > kMaxCablingFieldBytes || !Printable(field.text)) {
      Error(line, field.column, std::string(name) + " is not a name",
            "at most 256 printable bytes");
      *good = false;
      return "";
    }
    return field.text;
  }

  // Reads `side` ("switch" or "peer"): name, optional GUID, port.
  bool End(const std::vector<Field>& fields, int line, const std::string& side, CableEnd* end) {
    bool good = true;
    end->device = Text(fields, line, side.c_str(), &good);
    if (good && end->device.empty()) {
      Error(line, Column(fields, side.c_str()), side + " is empty", "the device's name");
      good = false;
    }
    std::string guid = Text(fields, line, (side + "_guid").c_str(), &good);
    if (!guid.empty()) {
      end->node_guid = ParseGuid(guid);
      if (!end->node_guid || *end->node_guid == 0) {
        Error(line, Column(fields, (side + "_guid").c_str()), "'" + guid + "' is not a node GUID",
              "0x and 1-16 hex digits, not zero");
        good = false;
      }
    }
    std::string port = Text(fields, line, (side + "_port").c_str(), &good);
    end->port = 0;
    if (port.size() <= 3 && !port.empty() && port.find_first_not_of("0123456789") == std::string::npos)
      end->port = std::stoi(port);
    if (end->port < 1 || end->port > kMaxSwitchPort) {
      Error(line, Column(fields, (side + "_port").c_str()), side + "_port '" + port + "' is not a port",
            "a port number 1.." + std::to_string(kMaxSwitchPort));
      good = false;
    }
    return good;
  }

  // One row per port, one GUID per name.
  void Claim(const DeclaredCable& cable) {
    if (parse_.cables.size() >= kMaxCables) {
      Error(cable.line, 1, "more than " + std::to_string(kMaxCables) + " cables", "split the fabric's files");
      return;
    }
    for (const CableEnd* end : {&cable.a, &cable.b}) {
      auto [it, fresh] = ports_.emplace(std::make_pair(end->device, end->port), cable.line);
      if (!fresh)
        Error(cable.line, 1, end->device + " port " + std::to_string(end->port) + " is already cabled on line " +
                                 std::to_string(it->second),
              "one row per cable, each port in one row");
      if (!end->node_guid) continue;
      auto [guid, first] = guids_.emplace(end->device, std::make_pair(*end->node_guid, cable.line));
      if (!first && guid->second.first != *end->node_guid)
        Error(cable.line, 1, end->device + " has node GUID " + FormatGuid(*end->node_guid) + " here but " +
                                 FormatGuid(guid->second.first) + " on line " + std::to_string(guid->second.second),
              "one GUID per device");
      auto [owner, new_guid] = owners_.emplace(*end->node_guid, std::make_pair(end->device, cable.line));
      if (!new_guid && owner->second.first != end->device)
        Error(cable.line, 1, "node GUID " + FormatGuid(*end->node_guid) + " is " + owner->second.first +
                                 "'s on line " + std::to_string(owner->second.second) + ", here " + end->device,
              "one device per GUID");
    }
    parse_.cables.push_back(cable);
  }

  std::string file_;
  CablingParse parse_;
  std::map<std::string, std::size_t> index_;
  std::map<std::pair<std::string, int>, int> ports_;
  std::map<std::string, std::pair<std::uint64_t, int>> guids_;
  std::map<std::uint64_t, std::pair<std::string, int>> owners_;
};

std::string Quoted(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos && text.find_first_of(" \t") != 0 &&
      (text.empty() || (text.back() != ' ' && text.back() != '\t')))
    return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string GuidText(const std::optional<std::uint64_t>& guid) { return guid ? FormatGuid(*guid) : ""; }

}  // namespace

bool CablingParse::ok() const { return diagnostics.empty(); }

CablingParse ParseCablingCsv(std::string_view text, const std::string& file) {
  Reader reader(file);
  if (text.size() > kMaxCablingBytes) {
    reader.Error(1, 1, "the file is larger than " + std::to_string(kMaxCablingBytes) + " bytes",
                 "split the fabric's files");
    return reader.Take();
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a spreadsheet's UTF-8 mark
  bool header_seen = false;
  int line_number = 0;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos || line.front() == '#') continue;
    std::string why;
    auto fields = SplitLine(line, &why);
    if (!fields) {
      reader.Error(line_number, 1, why, "close it with \"");
      continue;
    }
    if (!header_seen) {
      header_seen = true;
      if (!reader.Header(*fields, line_number)) return reader.Take();
      continue;
    }
    reader.Row(*fields, line_number);
  }
  if (!header_seen) reader.Error(1, 1, "no header row", "switch,switch_port,peer,peer_port first");
  return reader.Take();
}

std::string FormatCablingCsv(const std::vector<DeclaredCable>& cables) {
  std::string out = "switch,switch_guid,switch_port,peer,peer_guid,peer_port,cable_type,length,rate\n";
  for (const DeclaredCable& cable : cables) {
    out += Quoted(cable.a.device) + "," + GuidText(cable.a.node_guid) + "," + std::to_string(cable.a.port) +
           "," + Quoted(cable.b.device) + "," + GuidText(cable.b.node_guid) + "," +
           std::to_string(cable.b.port) + "," + Quoted(cable.cable_type) + "," + Quoted(cable.length) + "," +
           Quoted(cable.rate) + "\n";
  }
  return out;
}

}  // namespace smsupd::config
