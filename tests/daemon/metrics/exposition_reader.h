// Test helpers for Prometheus text: one sample's value, and the check of a
// whole exposition by promtool (Prometheus' own parser and linter).
#pragma once

#include <set>
#include <string>

namespace smsupd {

// The value of the sample whose name and labels are exactly `series`
// ("smsupd_failovers_total{cause=\"operator\"}"); NaN when absent.
double SampleValue(const std::string& exposition, const std::string& series);

// The metric family names of every "# TYPE" line.
std::set<std::string> FamilyNames(const std::string& exposition);

// `promtool check metrics` on `exposition`: "" when it passes, else its output.
std::string PromtoolProblems(const std::string& exposition);

}  // namespace smsupd
