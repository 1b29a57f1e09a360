#include "daemon/hooks/hook_directory.h"

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace smsupd {
namespace {

bool RunnableName(const char* name) {
  if (*name == '\0') return false;
  for (const char* c = name; *c != '\0'; ++c)
    if (!std::isalnum(static_cast<unsigned char>(*c)) && *c != '_' && *c != '-') return false;
  return true;
}

std::string Mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace

std::string OwnershipProblem(const struct stat& info) {
  if (info.st_uid != 0) return "owned by uid " + std::to_string(info.st_uid) + ", not root";
  if (info.st_mode & (S_IWGRP | S_IWOTH))
    return "writable by group or others (mode " + Mode(info.st_mode) + ")";
  return "";
}

HookListing ListHooks(const std::string& directory) {
  HookListing listing;
  struct stat info {};
  if (::stat(directory.c_str(), &info) != 0) {
    listing.error = "cannot read " + directory + ": " + std::strerror(errno);
    return listing;
  }
  if (!S_ISDIR(info.st_mode)) {
    listing.error = directory + " is not a directory";
    return listing;
  }
  if (std::string problem = OwnershipProblem(info); !problem.empty()) {
    listing.error = directory + " is " + problem;
    return listing;
  }
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) {
    listing.error = "cannot read " + directory + ": " + std::strerror(errno);
    return listing;
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir))
    if (RunnableName(entry->d_name)) names.emplace_back(entry->d_name);
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    std::string path = directory + "/" + name;
    if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) || !(info.st_mode & S_IXUSR)) continue;
    if (std::string problem = OwnershipProblem(info); !problem.empty())
      listing.refused.push_back(path + ": " + problem);
    else
      listing.hooks.push_back(path);
  }
  return listing;
}

}  // namespace smsupd
