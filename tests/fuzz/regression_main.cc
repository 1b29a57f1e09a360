// The normal build's test of one fuzz harness: its body runs once over every
// file of its seed corpus and of its regressions folder (inputs of bugs
// still open wait in tests/fuzz/regressions/unfixed/, which is not read).
// A broken property aborts the test; the input's path is printed first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> InputsIn(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(folder)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.is_regular_file() && entry.path().filename().string()[0] != '.')
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(FuzzInputs, SMSUPD_FUZZ_HARNESS) {
  int corpus = 0;
  for (const char* folder : {SMSUPD_FUZZ_CORPUS, SMSUPD_FUZZ_REGRESSIONS}) {
    for (const std::filesystem::path& file : InputsIn(folder)) {
      std::ifstream in(file, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::fprintf(stderr, "input %s (%zu bytes)\n", file.c_str(), bytes.size());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      corpus += folder == std::string(SMSUPD_FUZZ_CORPUS);
    }
  }
  EXPECT_GT(corpus, 0) << "no seed corpus in " << SMSUPD_FUZZ_CORPUS;
}

}  // namespace
