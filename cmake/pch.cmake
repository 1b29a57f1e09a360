# SMSUPD_PCH: the library headers most files include (the C++ library, Asio,
# nlohmann::json, spdlog; gtest for tests/) precompiled once per build (one
# header for the product, one for tests/, whose compile options differ) and
# reused by every target: a unity file otherwise parses them again.
# scripts/test.sh's clang sanitizer build uses it: 550 CPU-seconds instead of
# 760. With g++ it gains nothing (543 instead of 558: each file maps a
# 200 MB .gch), so the g++ builds leave it off.
set(SMSUPD_PCH_HEADERS
  <utility> <algorithm> <array> <chrono> <cstdint> <cstring> <deque> <filesystem>
  <fstream> <functional> <map> <memory> <mutex> <optional> <set> <sstream> <string>
  <string_view> <thread> <vector> <future>
  <nlohmann/json.hpp> <spdlog/spdlog.h>
  <boost/asio/io_context.hpp> <boost/asio/post.hpp> <boost/asio/steady_timer.hpp>)

# smsupd_pch_donor(NAME [LIBRARIES...]): a library whose only job is to hold
# the precompiled header (SMSUPD_PCH_HEADERS), with the compile options of the
# directory it is made in and the definitions of the libraries it links.
function(smsupd_pch_donor name)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/${name}.cc "")
  add_library(${name} STATIC ${CMAKE_CURRENT_BINARY_DIR}/${name}.cc)
  set_target_properties(${name} PROPERTIES UNITY_BUILD OFF)
  target_link_libraries(${name} PRIVATE nlohmann_json::nlohmann_json spdlog::spdlog Boost::headers ${ARGN})
  target_precompile_headers(${name} PRIVATE ${SMSUPD_PCH_HEADERS})
endfunction()

# smsupd_pch_reuse(DIR DONOR [SKIP_DIR]): every C++ target made in DIR and below
# (but not below SKIP_DIR) reuses DONOR's precompiled header.
function(smsupd_pch_reuse dir donor)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    # Shared libraries (-fPIC) are left to parse their headers.
    if(target STREQUAL donor OR NOT type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    target_precompile_headers(${target} REUSE_FROM ${donor})
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    if(NOT sub STREQUAL "${ARGV2}")
      smsupd_pch_reuse(${sub} ${donor} ${ARGV2})
    endif()
  endforeach()
endfunction()
