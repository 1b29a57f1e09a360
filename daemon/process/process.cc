#include "daemon/process/process.h"

#include <cstring>

namespace smsupd {

std::string ExitStatus::Describe() const {
  switch (kind) {
    case Kind::kExited:
      return "exit status " + std::to_string(value);
    case Kind::kSignaled:
      return "signal " + std::to_string(value) + " (" + ::strsignal(value) + ")";
    case Kind::kUnknown:
      break;
  }
  return "exit status unknown (adopted process)";
}

}  // namespace smsupd
