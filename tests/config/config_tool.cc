// A small driver over the offline commands, for tests and bench/ scripts:
//   config_tool validate FILE [--json]
//   config_tool render FILE DIR
// (smctl and smsupd --check wire the same functions.)
#include <iostream>
#include <string>

#include "config/commands.h"

int main(int argc, char** argv) {
  std::string command = argc > 1 ? argv[1] : "";
  if (command == "validate" && (argc == 3 || argc == 4))
    return smsupd::config::RunValidateCommand(argv[2], argc == 4 && std::string(argv[3]) == "--json",
                                              std::cout, std::cerr);
  if (command == "render" && argc == 4)
    return smsupd::config::RunRenderCommand(argv[2], argv[3], std::cout, std::cerr);
  std::cerr << "usage: config_tool validate FILE [--json] | render FILE DIR\n";
  return 64;
}
