#include "config/import_command.h"

#include "common/atomic_file.h"
#include "config/opensm_import.h"
#include "config/opensm_import_check.h"

namespace smsupd::config {
namespace {

// Reads `path` into `file`; false (and a line on `err`) when it cannot be.
bool ReadInput(const std::string& path, std::optional<ImportFile>& file, std::ostream& err) {
  if (path.empty()) return true;
  Result<std::string> text = ReadWholeFile(path, kMaxImportFileBytes);
  if (!text.ok()) {
    err << path << ": error: cannot read: " << text.error().message << "\n";
    return false;
  }
  file = ImportFile{path, std::move(*text)};
  return true;
}

void PrintFindings(const ImportFindings& findings, std::ostream& err) {
  // Every error is shown (an import has a few at most); warnings up to the bound.
  std::size_t shown = 0;
  for (const ImportFinding& finding : findings)
    if (finding.severity == ImportFinding::Severity::kError || shown < kMaxImportFindings) {
      err << finding.Format() << "\n";
      ++shown;
    }
  if (findings.size() > shown) err << "smctl import: " << findings.size() - shown << " more warnings not shown\n";
}

// --check: prints the comparison on `err`; true when every port is equal.
bool RunCheck(const ImportInputs& inputs, const ImportResult& result, std::ostream& err) {
  ImportCheck check = CheckImport(inputs, result);
  if (!check.invalid.empty()) {
    err << "smctl import: error: check not done: " << check.invalid << "\n";
    return false;
  }
  for (const std::string& difference : check.differences) err << "smctl import: error: check: " << difference << "\n";
  err << "check: " << check.ports << " ports compared (every GUID partitions.conf names, the SM's port, one "
      << "unnamed CA, switch and router port): "
      << (check.differences.empty() ? "every P_Key table equal"
                                    : std::to_string(check.differences.size()) + " differ")
      << "\n";
  return check.differences.empty();
}

}  // namespace

int RunImportCommand(const ImportOptions& options, std::ostream& out, std::ostream& err) {
  ImportInputs inputs;
  if (!ReadInput(options.opensm_conf, inputs.opensm_conf, err) || !ReadInput(options.partitions, inputs.partitions, err) ||
      !ReadInput(options.node_name_map, inputs.node_name_map, err))
    return kImportUnreadable;
  ImportResult result = ImportOpenSm(inputs);
  PrintFindings(result.findings, err);
  if (result.refused) return kImportFindings;
  bool clean = !result.HasFindings();
  if (options.check) clean = RunCheck(inputs, result, err) && clean;
  if (options.out_file.empty()) {
    out << result.yaml;
  } else if (Status written = WriteFileAtomically(options.out_file, result.yaml, 0644); !written.ok()) {
    err << options.out_file << ": error: cannot write: " << written.message() << "\n";
    return kImportFindings;
  } else {
    out << "wrote " << options.out_file << "\n";
  }
  return clean ? kImportClean : kImportFindings;
}

}  // namespace smsupd::config
