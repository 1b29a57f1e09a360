#include "tests/config/test_support.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace smsupd::config::testing {

std::string BaseYaml(std::string_view sm_extra, std::string_view partitions) {
  std::string yaml =
      "version: 1\n"
      "sm:\n"
      "  role: master\n";
  yaml += sm_extra;
  yaml +=
      "hosts:\n"
      "  h1: 0x0002c90300000001\n"
      "  h2: [0x0002c90300000002, 0x0002c90300000003]\n"
      "groups:\n"
      "  g: [h1]\n"
      "partitions:\n";
  if (partitions.empty())
    yaml +=
        "  - name: Default\n"
        "    pkey: 0x7fff\n"
        "    members:\n"
        "      - { ports: ALL, membership: full }\n";
  else
    yaml += partitions;
  return yaml;
}

ValidationOutcome Validate(std::string_view yaml) { return ValidateText(yaml, "test.yaml"); }

const Diagnostic* FindDiagnostic(const ValidationOutcome& outcome, std::string_view path) {
  for (const Diagnostic& diagnostic : outcome.diagnostics)
    if (diagnostic.yaml_path == path) return &diagnostic;
  return nullptr;
}

std::string AllDiagnostics(const ValidationOutcome& outcome) {
  std::string text;
  for (const Diagnostic& diagnostic : outcome.diagnostics) text += diagnostic.Format() + "\n";
  return text;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "smsupd-config-XXXXXX").string();
  path_ = mkdtemp(pattern.data());
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::Write(const std::string& name, const std::string& content, int mode) const {
  std::string file = path_ + "/" + name;
  std::ofstream(file) << content;
  chmod(file.c_str(), static_cast<mode_t>(mode));
  return file;
}

}  // namespace smsupd::config::testing
