// The twin as a gate: the twin's tables against smsupd's model of the
// config, the verdict on a twin report, the readiness classification, and
// the applier's gate decisions (which reloads are gated, what a verdict
// does). Fakes only: hand-made fabric states and reports.
#include <gtest/gtest.h>

#include "config/renderer.h"
#include "config/validator.h"
#include "daemon/apply/apply_decision.h"
#include "daemon/twin/takeover_readiness.h"
#include "daemon/twin/twin_gate.h"

namespace smsupd::twin {
namespace {

constexpr Guid kSmPort = 0x0002c90300000001;
constexpr Guid kH2 = 0x0002c90300000002;
constexpr Guid kSwitch = 0x0002c902000000a0;

// h1 is this node (the SM port, full in Default), h2 a limited member of
// Default and a full member of tenant 0x0010.
config::Config Config(const std::string& apply = "", const std::string& tenant_member = "full") {
  std::string yaml =
      "version: 1\n"
      "sm:\n"
      "  role: master\n" +
      apply +
      "hosts:\n"
      "  h1: 0x0002c90300000001\n"
      "  h2: 0x0002c90300000002\n"
      "partitions:\n"
      "  - name: Default\n"
      "    pkey: 0x7fff\n"
      "    members:\n"
      "      - { ports: ALL, membership: limited }\n"
      "      - { host: h1, membership: full }\n"
      "  - name: tenant\n"
      "    pkey: 0x0010\n"
      "    members:\n"
      "      - { host: h2, membership: " + tenant_member + " }\n";
  config::ValidationOutcome outcome = config::ValidateText(yaml, "test.yaml");
  EXPECT_TRUE(outcome.ok());
  return outcome.ok() ? *outcome.config : config::Config{};
}

StatePort Port(Guid guid, std::vector<uint16_t> pkeys, bool is_switch = false) {
  StatePort port;
  port.port_guid = guid;
  port.node_guid = guid;
  port.is_switch = is_switch;
  port.name = is_switch ? "leaf" : "host";
  port.pkeys = std::move(pkeys);
  port.read = true;
  return port;
}

// The tables OpenSM programs for Config(): what the model expects.
FabricState AsPlanned() {
  FabricState state;
  state.ports = {Port(kSmPort, {0xffff}), Port(kH2, {0x7fff, 0x8010}), Port(kSwitch, {0x7fff}, true)};
  return state;
}

nlohmann::json Report() {
  return {{"changed", true},
          {"routing", {{"engine_asked", "minhop"}, {"engine_used", "minhop"}, {"fallback", false},
                       {"engines_failed", nlohmann::json::array()}, {"credit_loops", nlohmann::json::array()}}},
          {"opensm", {{"default_partition_fallback", false}, {"partition_errors", nlohmann::json::array()},
                      {"warnings", nlohmann::json::array()}, {"credit_loops", nlohmann::json::array()}}},
          {"unreachable", {{"total", 0}, {"live", 0}}},
          {"unread", {{"live", 0}, {"twin", 0}}}};
}

ModelCheck Check(const FabricState& twin, const config::Config& config) {
  return CompareWithModel(twin, ModelTables(config, twin, kSmPort));
}

TEST(TwinGateJudge, TablesAsTheModelSaysAgree) {
  ModelCheck model = Check(AsPlanned(), Config());
  EXPECT_EQ(model.compared, 3);
  EXPECT_EQ(model.mismatches_total, 0);
  TwinVerdict verdict = JudgeTwin(Report(), "summary", model);
  EXPECT_EQ(verdict.kind, TwinVerdict::Kind::kAgrees);
  EXPECT_TRUE(verdict.reasons.empty());
  EXPECT_EQ(verdict.summary, "summary");
}

TEST(TwinGateJudge, ATableOtherThanTheModelDisagreesByPortAndEntries) {
  FabricState twin = AsPlanned();
  twin.ports[1].pkeys = {0x7fff, 0x0010};  // limited where the plan says full
  ModelCheck model = Check(twin, Config());
  ASSERT_EQ(model.mismatches_total, 1);
  EXPECT_NE(model.mismatches[0].find("0x0002c90300000002"), std::string::npos) << model.mismatches[0];
  EXPECT_NE(model.mismatches[0].find("twin 0x0010,0x7fff"), std::string::npos) << model.mismatches[0];
  EXPECT_NE(model.mismatches[0].find("plan 0x7fff,0x8010"), std::string::npos) << model.mismatches[0];
  TwinVerdict verdict = JudgeTwin(Report(), "", model);
  EXPECT_EQ(verdict.kind, TwinVerdict::Kind::kDisagrees);
  ASSERT_EQ(verdict.reasons.size(), 1u);
  EXPECT_EQ(verdict.reasons[0].rfind("P_Key tables differ from the plan on 1 port(s)", 0), 0u) << verdict.reasons[0];
}

TEST(TwinGateJudge, OrderAndEmptySlotsDoNotCount) {
  FabricState twin = AsPlanned();
  twin.ports[1].pkeys = {0x8010, 0x0000, 0x7fff, 0x8000};
  EXPECT_EQ(Check(twin, Config()).mismatches_total, 0);
}

// ibsim's switch port 0 holds 8 entries: a model that fills it only needs
// its first entries there, as the apply's verification allows.
TEST(TwinGateJudge, ATableFullToTheSimulatorsSizeNeedsOnlyModelEntries) {
  std::map<Guid, std::set<uint16_t>> model = {{kSwitch, {}}};
  for (uint16_t p = 1; p <= kIbsimSwitchPKeys; ++p) model[kSwitch].insert(p);
  FabricState twin;
  twin.ports = {Port(kSwitch, {1, 2, 3, 4, 5, 6, 7}, true)};
  EXPECT_EQ(CompareWithModel(twin, model).mismatches_total, 0);
  twin.ports[0].pkeys = {1, 2, 3, 0x0040};
  EXPECT_EQ(CompareWithModel(twin, model).mismatches_total, 1);
}

TEST(TwinGateJudge, UnreadPortsAreNotComparedAndNoneReadIsIncomplete) {
  FabricState twin = AsPlanned();
  for (StatePort& port : twin.ports) port.read = false;
  ModelCheck model = Check(twin, Config());
  EXPECT_EQ(model.compared, 0);
  TwinVerdict verdict = JudgeTwin(Report(), "", model);
  EXPECT_EQ(verdict.kind, TwinVerdict::Kind::kDisagrees);
  EXPECT_NE(verdict.reasons[0].find("incomplete"), std::string::npos);
}

// Each disagreement of docs/twin.md "The twin as a gate", one report field each.
TEST(TwinGateJudge, EveryKindOfDisagreementIsNamed) {
  const ModelCheck agreeing = Check(AsPlanned(), Config());
  struct Row {
    const char* name;
    void (*change)(nlohmann::json&);
    const char* reason;
  };
  const Row rows[] = {
      {"partitions.conf refused", [](nlohmann::json& r) { r["opensm"]["default_partition_fallback"] = true; },
       "OpenSM refused partitions.conf"},
      {"partition error line",
       [](nlohmann::json& r) { r["opensm"]["partition_errors"] = {"parse error at line 3"}; },
       "parse error at line 3"},
      {"routing fallback",
       [](nlohmann::json& r) {
         r["routing"]["engine_asked"] = "ftree";
         r["routing"]["fallback"] = true;
         r["routing"]["engines_failed"] = {"ftree: cannot build lid matrices"};
       },
       "routing: ftree asked, minhop used (fallback): ftree: cannot build lid matrices"},
      {"no engine", [](nlohmann::json& r) { r["routing"]["engine_used"] = ""; },
       "routing: no engine configured the switches"},
      {"opensm.conf complaint",
       [](nlohmann::json& r) { r["opensm"]["warnings"] = {"Invalid Cached Option Value:lmc = 9:Using Default:0"}; },
       "OpenSM complained about opensm.conf: Invalid Cached Option Value:lmc = 9"},
      {"unreachable", [](nlohmann::json& r) { r["unreachable"]["total"] = 3; },
       "3 LID(s) unreachable in the twin (live: 0)"},
      {"credit loops", [](nlohmann::json& r) { r["routing"]["credit_loops"] = {"credit loop found"}; },
       "credit loops: credit loop found"},
      {"unread", [](nlohmann::json& r) { r["unread"]["live"] = 2; }, "the comparison is incomplete: 2 live"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    nlohmann::json report = Report();
    row.change(report);
    TwinVerdict verdict = JudgeTwin(report, "", agreeing);
    EXPECT_EQ(verdict.kind, TwinVerdict::Kind::kDisagrees);
    ASSERT_EQ(verdict.reasons.size(), 1u) << nlohmann::json(verdict.reasons).dump();
    EXPECT_NE(verdict.reasons[0].find(row.reason), std::string::npos) << verdict.reasons[0];
  }
}

// Forwarding moves and P_Key changes the plan expects are the plan itself.
TEST(TwinGateJudge, MovedRoutesAndPlannedChangesAreNoDisagreement) {
  nlohmann::json report = Report();
  report["forwarding"] = {{"entries_moved", 14}, {"switches_changed", 4}};
  report["pkey_tables"] = {{"changed", 2}};
  EXPECT_EQ(JudgeTwin(report, "", Check(AsPlanned(), Config())).kind, TwinVerdict::Kind::kAgrees);
}

TEST(TwinGateJudge, AReportOfTheWrongShapeIsNoAgreement) {
  for (const nlohmann::json& report : {nlohmann::json(), nlohmann::json::array(), nlohmann::json("x"),
                                       nlohmann::json{{"routing", 5}, {"opensm", {{"warnings", 7}}}}}) {
    TwinVerdict verdict = JudgeTwin(report, "", Check(AsPlanned(), Config()));
    EXPECT_EQ(verdict.kind, TwinVerdict::Kind::kDisagrees) << report.dump();
  }
}

TEST(TwinGateJudge, AFailedTwinIsItsOwnVerdict) {
  TwinVerdict verdict = TwinFailed("no-space", "no disk space for the twin");
  EXPECT_EQ(verdict.kind, TwinVerdict::Kind::kFailed);
  nlohmann::json json = VerdictJson(verdict, config::TwinGate::kRequired);
  EXPECT_EQ(json["verdict"], "failed");
  EXPECT_EQ(json["kind"], "no-space");
  EXPECT_EQ(json["mode"], "required");
  EXPECT_EQ(json["reasons"][0], "no disk space for the twin");
}

TEST(TwinGateDecision, RequiredRefusesAdvisoryWarnsAgreementApplies) {
  using config::TwinGate;
  using Kind = TwinVerdict::Kind;
  struct Row {
    TwinGate mode;
    Kind verdict;
    GateStep expected;
  };
  const Row rows[] = {
      {TwinGate::kRequired, Kind::kAgrees, GateStep::kApply},
      {TwinGate::kRequired, Kind::kDisagrees, GateStep::kRefuse},
      {TwinGate::kRequired, Kind::kFailed, GateStep::kRefuse},
      {TwinGate::kAdvisory, Kind::kAgrees, GateStep::kApply},
      {TwinGate::kAdvisory, Kind::kDisagrees, GateStep::kApplyWithWarning},
      {TwinGate::kAdvisory, Kind::kFailed, GateStep::kApplyWithWarning},
      {TwinGate::kOff, Kind::kFailed, GateStep::kApply},
  };
  for (const Row& row : rows)
    EXPECT_EQ(DecideTwinGate(row.mode, row.verdict), row.expected)
        << config::TwinGateName(row.mode) << " " << TwinVerdictName(row.verdict);
}

TEST(TwinGateDecision, WhichReloadsAreGated) {
  using config::TwinGate;
  const config::Config off = Config(), advisory = Config("apply:\n  twin: advisory\n"),
                       required = Config("apply:\n  twin: required\n"),
                       changed = Config("", "limited");
  const std::string off_hash = config::ConfigHash(off.source_text);
  ApplyRequest reload = MakeApplyRequest("reload", "uid 0", 0);
  ApplyRequest asked = reload;
  asked.twin = true;
  ApplyRequest signal = MakeApplyRequest("signal", "signal");
  ApplyRequest rollback = MakeApplyRequest("rollback", "rollback by uid 0", 0);
  rollback.from_generation = 3;
  rollback.twin = true;

  EXPECT_EQ(TwinGateFor(reload, off, changed, off_hash), TwinGate::kOff);
  EXPECT_EQ(TwinGateFor(asked, off, changed, off_hash), TwinGate::kRequired);
  EXPECT_EQ(TwinGateFor(asked, off, off, off_hash), TwinGate::kRequired) << "asked: even the same YAML";
  EXPECT_EQ(TwinGateFor(signal, advisory, changed, "x"), TwinGate::kAdvisory) << "SIGHUP too";
  EXPECT_EQ(TwinGateFor(signal, off, required, off_hash), TwinGate::kRequired) << "turning it on gates that reload";
  EXPECT_EQ(TwinGateFor(reload, required, off, "x"), TwinGate::kRequired) << "turning it off passes it once";
  EXPECT_EQ(TwinGateFor(reload, advisory, required, "x"), TwinGate::kRequired) << "the stricter";
  EXPECT_EQ(TwinGateFor(reload, required, required, config::ConfigHash(required.source_text)), TwinGate::kOff)
      << "the same YAML changes nothing";
  EXPECT_EQ(TwinGateFor(rollback, required, required, "x"), TwinGate::kOff) << "a rollback is never gated";
}

TEST(TakeoverReadinessClassify, ChangeNoChangeFailedAndIncomplete) {
  TwinRunResult run;
  run.ok = true;
  run.report = Report();
  run.text = "Twin plan: 1 port's P_Key table changes\nmore";
  std::string text;
  EXPECT_EQ(ClassifyReadiness(run, &text), ReadinessResult::kWouldChange);
  EXPECT_EQ(text, "Twin plan: 1 port's P_Key table changes");
  run.report["changed"] = false;
  EXPECT_EQ(ClassifyReadiness(run, &text), ReadinessResult::kNoChange);
  run.report["unread"]["twin"] = 4;
  EXPECT_EQ(ClassifyReadiness(run, &text), ReadinessResult::kFailed);
  EXPECT_NE(text.find("incomplete"), std::string::npos);
  TwinRunResult failed;
  failed.kind = "not-up";
  failed.error = "OpenSM did not reach SUBNET UP within 3 s";
  EXPECT_EQ(ClassifyReadiness(failed, &text), ReadinessResult::kFailed);
  EXPECT_EQ(text, "OpenSM did not reach SUBNET UP within 3 s (not-up)");
  EXPECT_STREQ(ReadinessResultName(ReadinessResult::kWouldChange), "would-change");
}

}  // namespace
}  // namespace smsupd::twin
