// How a verification reads to an operator (text) and to smctl --json.
#include <cstdio>

#include "common/guid.h"
#include "daemon/pkey/pkey_verifier.h"

namespace smsupd {
namespace {

const char* Word(bool full) { return full ? "full" : "limited"; }

// "full", "limited" or "both" for each 15-bit P_Key of `entries`.
nlohmann::json Memberships(const std::set<uint16_t>& entries) {
  nlohmann::json out = nlohmann::json::object();
  for (uint16_t entry : entries) {
    std::string key = FormatPKey(entry & ~config::kPKeyFullBit);
    std::string word = Word((entry & config::kPKeyFullBit) != 0);
    out[key] = out.contains(key) && out[key] != word ? "both" : word;
  }
  return out;
}

std::string Plural(size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

}  // namespace

std::string PKeyMismatch::Describe() const {
  std::vector<std::string> parts;
  for (const auto& [pkey, full] : expected) {
    auto it = actual.find(pkey);
    if (it == actual.end()) {
      parts.push_back(FormatPKey(pkey) + " missing");
    } else if (it->second != full) {
      parts.push_back(FormatPKey(pkey) + " expected " + Word(full) + ", is " + Word(it->second));
    }
  }
  for (const auto& [pkey, full] : actual)
    if (!expected.count(pkey))
      parts.push_back(FormatPKey(pkey) + " unexpected (" + Word(full) + ")");
  // Same memberships, different entries: a `both` on one side only.
  if (parts.empty()) {
    for (uint16_t entry : expected_entries)
      if (!actual_entries.count(entry)) parts.push_back("entry " + FormatPKey(entry) + " missing");
    for (uint16_t entry : actual_entries)
      if (!expected_entries.count(entry))
        parts.push_back("entry " + FormatPKey(entry) + " unexpected");
  }
  std::string text = (host.empty() ? std::string() : host + " ") + FormatGuid(guid) + ":";
  for (size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? " " : "; ") + parts[i];
  return text;
}

bool PKeyVerification::ok() const {
  return mismatches.empty() && unreachable.empty() && !default_fallback && checked > 0;
}

std::string PKeyVerification::Summary() const {
  std::string text;
  if (ok()) {
    text = "verified " + std::to_string(checked) + "/" + std::to_string(expected) + " ports";
  } else {
    std::vector<std::string> problems;
    if (!mismatches.empty()) problems.push_back(Plural(mismatches.size(), "mismatch", "mismatches"));
    if (!unreachable.empty()) problems.push_back(Plural(unreachable.size(), "unreachable port", "unreachable ports"));
    if (checked == 0 && unreachable.empty()) problems.push_back("no port to check");
    text = "verification failed: ";
    for (size_t i = 0; i < problems.size(); ++i) text += (i == 0 ? "" : ", ") + problems[i];
    if (default_fallback) text += "; OpenSM fell back to the default partition (every port full in 0x7fff)";
  }
  if (!absent.empty()) text += "; " + Plural(absent.size(), "named port", "named ports") + " not on the fabric";
  return text;
}

nlohmann::json PKeyVerification::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const PKeyMismatch& mismatch : mismatches) {
    list.push_back({{"guid", FormatGuid(mismatch.guid)},
                    {"lid", mismatch.lid},
                    {"host", mismatch.host},
                    {"expected", Memberships(mismatch.expected_entries)},
                    {"actual", Memberships(mismatch.actual_entries)},
                    {"text", mismatch.Describe()}});
  }
  return {{"ok", ok()},
          {"summary", Summary()},
          {"checked", checked},
          {"expected", expected},
          {"default_fallback", default_fallback},
          {"mismatches", list},
          {"unreachable", unreachable},
          {"absent", absent}};
}

}  // namespace smsupd
