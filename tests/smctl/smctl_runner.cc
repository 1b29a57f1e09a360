#include "tests/smctl/smctl_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace smsupd::smctl::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

SmctlProcess::SmctlProcess(const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& env) {
  char pattern[] = "/tmp/smctl-run-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  directory_ = pattern;
  // Everything the child needs is built before fork: after it, only
  // async-signal-safe calls (the test process has threads).
  std::vector<std::string> argv_storage = {SMCTL_BINARY};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::map<std::string, std::string> merged;
  for (char** entry = environ; *entry; ++entry) {
    std::string text = *entry;
    auto equals = text.find('=');
    if (equals != std::string::npos) merged[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const auto& [key, value] : env) merged[key] = value;
  std::vector<std::string> env_storage;
  for (const auto& [key, value] : merged) env_storage.push_back(key + "=" + value);
  std::vector<char*> argv, envp;
  for (auto& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  for (auto& entry : env_storage) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string out_path = directory_ + "/out", err_path = directory_ + "/err";

  pid_ = fork();
  if (pid_ == 0) {
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
}

SmctlProcess::~SmctlProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

SmctlResult SmctlProcess::Wait(std::chrono::milliseconds deadline) {
  SmctlResult result;
  auto end = std::chrono::steady_clock::now() + deadline;
  int status = 0;
  while (pid_ > 0) {
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      pid_ = -1;
      result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      break;
    }
    if (std::chrono::steady_clock::now() > end) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.out = ReadFile(directory_ + "/out");
  result.err = ReadFile(directory_ + "/err");
  return result;
}

std::string SmctlProcess::OutputSoFar() const { return ReadFile(directory_ + "/out"); }

}  // namespace smsupd::smctl::testing
