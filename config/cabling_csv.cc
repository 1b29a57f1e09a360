#include "config/cabling_csv.h"

#include <array>
#include <map>
#include <utility>

#include "common/guid.h"
#include "config/cabling_rows.h"

namespace smsupd::config {
namespace {

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

// Reads the header, then turns each line into a CablingRow for the checker
// every cable goes through (config/cabling_rows.h).
class Reader {
 public:
  explicit Reader(const std::string& file) : checker_(file) {}

  void Error(int line, int column, std::string what, std::string valid = "") {
    checker_.Error(line, column, "", std::move(what), std::move(valid));
  }

  bool Header(const std::vector<Field>& fields, int line) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      int known = -1;
      for (std::size_t k = 0; k < kCablingColumns.size(); ++k)
        if (fields[i].text == kCablingColumns[k]) known = static_cast<int>(k);
      if (known < 0) {
        Error(line, fields[i].column, "unknown column '" + fields[i].text + "'",
              "columns: switch, switch_guid, switch_port, peer, peer_guid, peer_port, cable_type, length, rate");
      } else if (index_.count(std::string(kCablingColumns[known]))) {
        Error(line, fields[i].column, "column '" + fields[i].text + "' given twice");
      } else {
        index_[std::string(kCablingColumns[known])] = i;
      }
    }
    for (std::string_view name : kCablingRequired)
      if (!index_.count(std::string(name)))
        Error(line, 1, "the header has no column '" + std::string(name) + "'",
              "required: switch, switch_port, peer, peer_port");
    return checker_.ok();
  }

  void Row(const std::vector<Field>& fields, int line) {
    if (fields.size() > index_.size() + 3) {  // a few empty trailing cells are a spreadsheet's habit
      Error(line, fields.back().column, std::to_string(fields.size()) + " fields",
            "at most the header's " + std::to_string(index_.size()));
      return;
    }
    CablingRow row;
    row.line = line;
    for (const auto& [name, index] : index_)
      if (index < fields.size()) row.cells[name] = CablingCell{fields[index].text, line, fields[index].column};
    checker_.Check(row);
  }

  CablingParse Take() { return checker_.Take(); }

 private:
  CablingRowChecker checker_;
  std::map<std::string, std::size_t> index_;
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
