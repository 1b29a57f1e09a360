// A small driver over the offline commands, for tests and bench/ scripts:
//   config_tool validate FILE [--json]
//   config_tool render FILE DIR
//   config_tool plan BEFORE AFTER [--json]   (no fabric: the ports both files name)
// (smctl and smsupd --check wire the same functions.)
#include <iostream>
#include <string>

#include "config/commands.h"
#include "config/plan.h"
#include "config/validator.h"

namespace {

int Plan(const std::string& before_path, const std::string& after_path, bool json) {
  smsupd::config::ValidationOutcome before = smsupd::config::LoadAndValidate(before_path);
  smsupd::config::ValidationOutcome after = smsupd::config::LoadAndValidate(after_path);
  for (const auto* outcome : {&before, &after})
    for (const auto& diagnostic : outcome->diagnostics) std::cerr << diagnostic.Format() << "\n";
  if (!before.ok() || !after.ok()) return 1;
  smsupd::config::ConfigPlan plan =
      smsupd::config::PlanConfigChange(*before.config, *after.config, {}, 0);
  std::cout << (json ? plan.ToJson().dump(2) + "\n" : plan.Format());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command = argc > 1 ? argv[1] : "";
  if (command == "validate" && (argc == 3 || argc == 4))
    return smsupd::config::RunValidateCommand(
        argv[2], argc == 4 && std::string(argv[3]) == "--json", std::cout, std::cerr);
  if (command == "render" && argc == 4)
    return smsupd::config::RunRenderCommand(argv[2], argv[3], std::cout, std::cerr);
  if (command == "plan" && (argc == 4 || argc == 5))
    return Plan(argv[2], argv[3], argc == 5 && std::string(argv[4]) == "--json");
  std::cerr << "usage: config_tool validate FILE [--json] | render FILE DIR | plan BEFORE AFTER "
               "[--json]\n";
  return 64;
}
