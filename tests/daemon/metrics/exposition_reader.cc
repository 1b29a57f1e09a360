#include "tests/daemon/metrics/exposition_reader.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace smsupd {

double SampleValue(const std::string& exposition, const std::string& series) {
  std::istringstream lines(exposition);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return std::nan("");
}

std::set<std::string> FamilyNames(const std::string& exposition) {
  std::set<std::string> names;
  std::istringstream lines(exposition);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("# TYPE ", 0) != 0) continue;
    std::istringstream words(line.substr(7));
    std::string name;
    words >> name;
    names.insert(name);
  }
  return names;
}

std::string PromtoolProblems(const std::string& exposition) {
  char path[] = "/tmp/exposition-XXXXXX";
  int fd = ::mkstemp(path);
  if (fd < 0) return "cannot write a temporary file";
  ::close(fd);
  std::ofstream(path) << exposition;
  std::string command = std::string(PROMTOOL_PATH) + " check metrics < " + path + " 2>&1";
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "cannot run " + command;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  int status = ::pclose(pipe);
  ::unlink(path);
  if (status != 0) return "promtool check metrics failed (status " + std::to_string(status) + "): " + output;
  return output;  // lint findings print with exit 0 in some versions: they count too
}

}  // namespace smsupd
