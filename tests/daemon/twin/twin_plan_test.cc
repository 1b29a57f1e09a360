// `smctl plan --twin` against what the real apply then does on the "live"
// fabric (itself an ibsim): the P_Key tables the twin forecasts are the ones
// `smctl reload --wait` produces, port by port (read by the test bed's own
// probe); the number of forwarding-table entries a routing change moves is
// the number that moves on live (the tables read before and after with
// `smsupd --twin-probe` on the live fabric); OpenSM's fallbacks and its
// reading of an option smsupd passes through are reported.
#include <gtest/gtest.h>

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>

#include <cstring>

#include <filesystem>
#include <functional>
#include <future>
#include <iostream>
#include <sstream>

#include "common/atomic_file.h"
#include "daemon/twin/fabric_state.h"
#include "daemon/twin/twin_report.h"
#include "tests/daemon/pkey_apply/pkey_apply_fixture.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::pkey {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kTwinSmctlDeadline(300000);
constexpr milliseconds kProbeDeadline(60000);

class TwinPlanTest : public PKeyApplyTest {
 protected:
  // `smctl --json plan --twin FILE` of master()'s config as it is now
  // (written beside the config, not applied). Returns the reply's arguments.
  json TwinPlan(const std::vector<std::string>& extra = {}) {
    std::string path = master().dir() + "/candidate.yaml";
    EXPECT_TRUE(WriteFileAtomically(path, master().config().Yaml()).ok());
    std::vector<std::string> args = {"--json", "plan", "--twin", path};
    args.insert(args.end(), extra.begin(), extra.end());
    last_ = master().Smctl(args, kTwinSmctlDeadline);
    EXPECT_TRUE(last_.exit_code == 0 || last_.exit_code == 1) << last_.Describe() << master().LogTail();
    return last_.Arguments();
  }

  // The live fabric's tables, read from the master's node by the product's
  // probe mode (the same reader the twin uses on its copy).
  twin::FabricState LiveState() {
    const std::string out = master().dir() + "/live-state-" + std::to_string(++reads_) + ".json";
    auto process = fabric().RunOnNode(master().node(),
                                      {SMSUPD_DAEMON_PATH, "--twin-probe", "--port-guid",
                                       FormatGuid(master().port_guid()), "--out", out},
                                      "live-read");
    EXPECT_TRUE(process.ok());
    if (!process.ok()) return {};
    auto exit = (*process)->process->Wait(kProbeDeadline);
    EXPECT_TRUE(exit.ok() && !exit->signaled && exit->code == 0) << "the live read failed";
    auto text = ReadWholeFile(out);
    EXPECT_TRUE(text.ok());
    if (!text.ok()) return {};
    auto state = twin::FabricStateFromJson(json::parse(*text, nullptr, false));
    EXPECT_TRUE(state.ok()) << (state.ok() ? "" : state.error().message);
    return state.ok() ? *state : twin::FabricState{};
  }

  // Applies master()'s config (an OpenSM restart allowed) and waits until verified.
  void ApplyWithRestart() {
    ASSERT_TRUE(master().WriteConfig().ok());
    SmctlResult reply = ApplyWithWait(master(), {"reload", "--restart", "--force"});
    ASSERT_EQ(reply.exit_code, 0) << reply.Describe() << master().LogTail();
    ASSERT_EQ(reply.VerificationState(), "verified") << reply.Describe();
  }

  // Forecast vs live for a routing_engine change: the twin's count of moved
  // entries equals what the apply then moves. Returns the twin's answer.
  json ExpectRoutingForecast(const std::string& engine) {
    twin::FabricState before = LiveState();
    master().config().opensm_options["routing_engine"] = engine;
    json forecast = TwinPlan();
    if (HasFailure()) return forecast;
    ApplyWithRestart();
    twin::FabricState after = LiveState();
    twin::TableComparison live = twin::CompareFabricStates(before, after);
    EXPECT_GT(live.switches_compared, 0);
    EXPECT_EQ(forecast["forwarding"].value("entries_moved", -1), live.entries_moved)
        << engine << ": forecast " << forecast["forwarding"].dump() << "\n" << last_.out;
    EXPECT_EQ(forecast["forwarding"].value("switches_changed", -1), live.switches_changed) << engine;
    return forecast;
  }

  SmctlResult last_;
  int reads_ = 0;
};

// The changes of the P_Key apply tests, one after another: for each, the
// twin's forecast applied to the tables read before equals the tables
// read after the real apply, on every port.
TEST_F(TwinPlanTest, PKeyForecastEqualsWhatTheApplyProducesPortByPort) {
  auto add = [&] {
    master().config().partitions.push_back(
        {"tenant-c", 0x0030, false, std::nullopt, {HostMember("H2_4", "full"), HostMember("H1_3", "limited")}});
  };
  auto remove = [&] { master().config().Remove("tenant-b"); };
  auto move = [&] {
    auto& a = master().config().Find("tenant-a")->members;
    a.erase(std::find(a.begin(), a.end(), HostMember("H1_4", "full")));
    master().config().Find("tenant-b")->members.push_back(HostMember("H1_4", "full"));
  };
  auto downgrade = [&] {
    master().config().Find("tenant-a")->members = {HostMember("H1_3", "limited"), HostMember("H1_4", "full"),
                                                   HostMember("H2_1", "full")};
  };
  std::vector<std::pair<std::string, std::function<void()>>> changes = {
      {"add", add}, {"move", move}, {"downgrade", downgrade}, {"remove", remove}};
  for (auto& [name, change] : changes) {
    SCOPED_TRACE(name);
    FabricPKeyTables before = Tables();
    change();
    json forecast = TwinPlan();
    ASSERT_TRUE(forecast.contains("pkey_tables")) << last_.Describe();
    EXPECT_GT(forecast["pkey_tables"].value("changed", 0), 0) << last_.out;
    std::map<Guid, PKeyEntries> predicted = before.entries;
    for (const json& port : forecast["pkey_tables"]["ports"]) {
      PKeyEntries after;
      for (const json& entry : port["after"]) after.insert(static_cast<uint16_t>(std::stoul(entry.get<std::string>(), nullptr, 16)));
      predicted[*ParseGuid(port["guid"].get<std::string>())] = after;
    }
    EXPECT_EQ(forecast["routing"].value("fallback", true), false);
    ApplyAndExpectVerified();
    FabricPKeyTables applied = Tables();
    for (const auto& [guid, entries] : applied.entries)
      EXPECT_EQ(PKeyEntriesText(predicted[guid]), PKeyEntriesText(entries)) << FormatGuid(guid);
    EXPECT_EQ(predicted.size(), applied.entries.size());
  }
}

TEST_F(TwinPlanTest, RoutingEngineChangesOnTheFatTreeAreForecast) {
  json ftree = ExpectRoutingForecast("ftree");
  EXPECT_EQ(ftree["routing"].value("engine_used", ""), "ftree") << ftree.dump();
  EXPECT_EQ(ftree["routing"].value("fallback", true), false);
  json updn = ExpectRoutingForecast("updn");
  EXPECT_EQ(updn["routing"].value("engine_used", ""), "updn") << updn.dump();
  json minhop = ExpectRoutingForecast("minhop");
  EXPECT_EQ(minhop["routing"].value("engine_used", ""), "minhop");
}

// The leaves cabled to each other and the spines left out: two switches
// of the same rank, each with hosts, which ftree does not take for a fat
// tree (OpenSM: "Found more than one root"); it falls back to minhop.
class TwinPlanNotAFatTreeTest : public TwinPlanTest {
 protected:
  void ShapeTopology(Topology& topology) override {
    std::vector<TopoLink> links;
    for (const TopoLink& link : topology.links())
      if (link.a[0] != 'S' && link.b[0] != 'S') links.push_back(link);
    links.push_back({"L1", 30, "L2", 30});
    links.push_back({"L1", 31, "L2", 31});
    topology.SetLinks(std::move(links));
  }
};

TEST_F(TwinPlanNotAFatTreeTest, FtreeFallsBackAndTheForecastStillHolds) {
  json forecast = ExpectRoutingForecast("ftree");
  EXPECT_EQ(forecast["routing"].value("engine_asked", ""), "ftree");
  EXPECT_EQ(forecast["routing"].value("engine_used", ""), "minhop");
  EXPECT_EQ(forecast["routing"].value("fallback", false), true);
  EXPECT_FALSE(forecast["routing"]["engines_failed"].empty()) << forecast.dump();
  EXPECT_NE(last_.out.find("ERR AB"), std::string::npos) << "OpenSM's reason: " << last_.out;
}

// A fat tree with one leaf-to-leaf cable more: ftree accepts it but leaves
// hosts without routes, which the apply would find only afterwards (its
// verification fails and it rolls back). The twin says so beforehand.
class TwinPlanCrossLinkTest : public TwinPlanTest {
 protected:
  void ShapeTopology(Topology& topology) override { topology.AddLink({"L1", 30, "L2", 30}); }
};

TEST_F(TwinPlanCrossLinkTest, RoutesThatWouldLeaveHostsUnreachableAreReported) {
  master().config().opensm_options["routing_engine"] = "ftree";
  json forecast = TwinPlan({"--exit-code"});
  EXPECT_EQ(last_.exit_code, 1) << last_.Describe();
  EXPECT_GT(forecast["unreachable"].value("total", 0), 0) << forecast.dump();
  EXPECT_EQ(forecast["unreachable"].value("live", -1), 0);
  EXPECT_NE(last_.out.find("unreachable"), std::string::npos);
}

// lmc accepts 0..255 in smsupd's option table (passed through as OpenSM's
// own type); OpenSM resets anything above 7 to 0. `plan` shows an LMC
// change; the twin shows OpenSM refusing it, and no route moving.
TEST_F(TwinPlanTest, AnOptionOpenSmReadsDifferentlyIsCaughtByTheTwinOnly) {
  master().config().opensm_options["lmc"] = "9";
  std::string path = master().dir() + "/candidate.yaml";
  ASSERT_TRUE(WriteFileAtomically(path, master().config().Yaml()).ok());
  SmctlResult plan = master().Smctl({"--json", "plan", path});
  ASSERT_EQ(plan.exit_code, 0) << plan.Describe();
  EXPECT_NE(plan.out.find("\"lmc\""), std::string::npos) << "plan lists the option";
  EXPECT_EQ(plan.out.find("Invalid"), std::string::npos) << "plan cannot know OpenSM's reading";

  json twin = TwinPlan({"--exit-code"});
  EXPECT_EQ(last_.exit_code, 0) << "nothing changes on the fabric: " << last_.Describe();
  bool warned = false;
  for (const json& line : twin["opensm"]["warnings"])
    warned = warned || line.get<std::string>().find("lmc = 9") != std::string::npos;
  EXPECT_TRUE(warned) << twin["opensm"].dump();
  EXPECT_EQ(twin["forwarding"].value("entries_moved", -1), 0);
}

TEST_F(TwinPlanTest, ReportsMulticastGroupsTimingsAndNoChangeForTheSameConfig) {
  json twin = TwinPlan({"--exit-code"});
  EXPECT_EQ(last_.exit_code, 0) << last_.Describe();
  EXPECT_EQ(twin["pkey_tables"].value("changed", -1), 0);
  EXPECT_EQ(twin["forwarding"].value("entries_moved", -1), 0);
  bool tenant_a = false;  // ipoib: its broadcast group
  for (const json& group : twin["multicast_groups"]) tenant_a = tenant_a || group.value("pkey", "") == "0x8010";
  EXPECT_TRUE(tenant_a) << twin["multicast_groups"].dump();
  EXPECT_GT(twin["timings_ms"].value("total", 0), 0);
  // The twin cleaned up: no directory left beside the socket.
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(master().socket_path()).parent_path()))
    EXPECT_EQ(entry.path().filename().string().rfind("twin-", 0), std::string::npos) << entry.path();
}

TEST_F(TwinPlanTest, AnInvalidFileIsRefusedLikePlan) {
  std::string path = master().dir() + "/candidate.yaml";
  ASSERT_TRUE(WriteFileAtomically(path, master().config().Yaml() + "no_such_key: 1\n").ok());
  SmctlResult refused = master().Smctl({"plan", "--twin", path, "--exit-code"}, kTwinSmctlDeadline);
  EXPECT_EQ(refused.exit_code, 4) << refused.Describe();
}

// The pid of a twin runner (`smsupd --twin-run DIR`) whose DIR is under
// `run_dir`, 0 when none runs.
pid_t TwinRunner(const std::string& run_dir) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    Result<std::string> read = ReadWholeFile(entry.path() / "cmdline");  // exited meanwhile: an error
    const std::string cmdline = read.ok() ? *read : "";
    if (cmdline.find(std::string("--twin-run") + '\0' + run_dir + "/twin-") != std::string::npos)
      return std::stoi(name);
  }
  return 0;
}

// One twin at a time: while one runs (its runner held with SIGSTOP, so it
// cannot finish meanwhile), a second request is refused "busy"; the first
// then completes.
TEST_F(TwinPlanTest, ASecondTwinWhileOneRunsIsRefusedBusy) {
  std::string path = master().dir() + "/candidate.yaml";
  ASSERT_TRUE(WriteFileAtomically(path, master().config().Yaml()).ok());
  auto first = std::async(std::launch::async,
                          [&] { return master().Smctl({"--json", "plan", "--twin", path}, kTwinSmctlDeadline); });
  const std::string run_dir = std::filesystem::path(master().socket_path()).parent_path();
  pid_t runner = 0;
  Status started = WaitFor("the first twin's runner", [&] { return (runner = TwinRunner(run_dir)) != 0; }, milliseconds(30000),
                           milliseconds(1));
  ASSERT_TRUE(started.ok()) << started.message();
  bool stopped = ::kill(runner, SIGSTOP) == 0;
  SmctlResult second = master().Smctl({"--json", "plan", "--twin", path}, kTwinSmctlDeadline);
  if (stopped) ::kill(runner, SIGCONT);
  SmctlResult done = first.get();
  ASSERT_TRUE(stopped) << "the runner ended before it could be held";
  EXPECT_EQ(second.exit_code, 1) << second.Describe();
  EXPECT_NE(second.out.find("busy"), std::string::npos) << second.Describe();
  EXPECT_EQ(done.exit_code, 0) << done.Describe();
}

// Without the simulator: a clear error naming the Debian package, nothing
// left behind.
TEST_F(TwinPlanTest, AMissingSimulatorIsNamedWithItsPackage) {
  master().Stop();
  ASSERT_TRUE(master().Start({{"SMSUPD_TWIN_IBSIM", master().dir() + "/no-ibsim"}}).ok());
  ASSERT_TRUE(master().WaitForSmState("MASTER", kStartDeadline).ok());
  std::string path = master().dir() + "/candidate.yaml";
  ASSERT_TRUE(WriteFileAtomically(path, master().config().Yaml()).ok());
  SmctlResult refused = master().Smctl({"plan", "--twin", path}, kTwinSmctlDeadline);
  EXPECT_EQ(refused.exit_code, 1) << refused.Describe();
  EXPECT_NE(refused.err.find("ibsim-utils"), std::string::npos) << refused.Describe();
}

// On a STANDBY, `plan --twin` without FILE runs the standby's own config
// against the fabric the master programmed: what a takeover now would
// change. Equal configs: nothing; another routing_engine or partition on the
// standby: the moved routes and the changed P_Key tables, before any failover.
TEST_F(TwinPlanTest, OnAStandbyTheTwinForecastsWhatATakeoverWouldChange) {
  ManagementNode* standby = StartNode(fabric().topology().management_nodes()[1], "standby", "STANDBY");
  ASSERT_NE(standby, nullptr);
  SmctlResult same = standby->Smctl({"--json", "plan", "--twin", "--exit-code"}, kTwinSmctlDeadline);
  EXPECT_EQ(same.exit_code, 0) << same.Describe() << standby->LogTail();

  standby->config().opensm_options["routing_engine"] = "updn";
  standby->config().partitions.push_back(
      {"standby-only", 0x0040, false, std::nullopt, {HostMember("H2_2", "full")}});
  ASSERT_TRUE(standby->WriteConfig().ok());
  SmctlResult differs = standby->Smctl({"--json", "plan", "--twin", "--exit-code"}, kTwinSmctlDeadline);
  EXPECT_EQ(differs.exit_code, 1) << differs.Describe();
  json report = differs.Arguments();
  EXPECT_GT(report["forwarding"].value("entries_moved", 0), 0) << report.dump();
  ASSERT_EQ(report["pkey_tables"].value("changed", 0), 1) << report.dump();
  EXPECT_EQ(report["pkey_tables"]["ports"][0].value("name", ""), "H2_2");
  Result<json> status = standby->StatusJson();
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->value("local_sm", json::object()).value("state", ""), "STANDBY")
      << "the twin changed nothing on the standby";
}

// ---- The twin as a gate (docs/twin.md "The twin as a gate") ----------------

// What a refused reload must leave as it was: the generation, the files
// smsupd gave OpenSM, OpenSM itself, every port's P_Key table.
struct LiveSnapshot {
  std::uint64_t generation = 0;
  std::string partitions_conf, opensm_conf;
  std::optional<pid_t> opensm;
  std::map<Guid, PKeyEntries> tables;
};

class TwinGateTest : public TwinPlanTest {
 protected:
  LiveSnapshot Take() {
    LiveSnapshot snapshot;
    snapshot.generation = Generation(master());
    snapshot.partitions_conf = master().PartitionsConf();
    auto conf = ReadWholeFile(master().StatePath("opensm.conf"));
    snapshot.opensm_conf = conf ? *conf : "(unreadable)";
    snapshot.opensm = master().OpenSmPid();
    snapshot.tables = Tables().entries;
    return snapshot;
  }

  void ExpectUnchanged(const LiveSnapshot& before) {
    LiveSnapshot now = Take();
    EXPECT_EQ(now.generation, before.generation);
    EXPECT_EQ(now.partitions_conf, before.partitions_conf) << "partitions.conf was rewritten";
    EXPECT_EQ(now.opensm_conf, before.opensm_conf) << "opensm.conf was rewritten";
    EXPECT_EQ(now.opensm, before.opensm) << "OpenSM was restarted";
    EXPECT_EQ(now.tables.size(), before.tables.size());
    for (const auto& [guid, entries] : before.tables)
      EXPECT_EQ(PKeyEntriesText(now.tables[guid]), PKeyEntriesText(entries)) << FormatGuid(guid);
  }

  // The last twin-gate event's details (null when none).
  json LastGateEvent(ManagementNode& node) {
    Result<std::vector<json>> events = node.Events();
    EXPECT_TRUE(events.ok());
    json last;
    if (events.ok())
      for (const json& event : *events)
        if (event.value("kind", "") == "twin-gate") last = event["details"];
    return last;
  }

  // No twin directory beside the socket, no twin process of this node.
  void ExpectNoTwinLeft() {
    const std::string run_dir = std::filesystem::path(master().socket_path()).parent_path();
    for (const auto& entry : std::filesystem::directory_iterator(run_dir))
      EXPECT_EQ(entry.path().filename().string().rfind("twin-", 0), std::string::npos) << entry.path();
    EXPECT_EQ(TwinRunner(run_dir), 0) << "a twin runner is left";
    // Every process of a twin (probes, ibsim, OpenSM) works in its directory.
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      std::error_code error;
      std::string cwd = std::filesystem::read_symlink(entry.path() / "cwd", error).string();
      EXPECT_TRUE(error || cwd.rfind(run_dir + "/twin-", 0) != 0) << "a twin's process is left: " << entry.path();
    }
  }

  // A config change OpenSM reads otherwise than smsupd's model: lmc 9,
  // which OpenSM resets to 0 ("Invalid Cached Option Value"), with a new
  // partition beside it.
  void DisagreeingChange() {
    master().config().opensm_options["lmc"] = "9";
    master().config().partitions.push_back({"tenant-d", 0x0050, false, std::nullopt, {HostMember("H2_3", "full")}});
  }

  static std::string TextOf(const SmctlResult& result) {
    json whole = result.Json();
    return whole.is_object() ? whole.value("text", "") + " " + (whole["error"].is_object() ? whole["error"].value("message", "") : "")
                             : result.out;
  }
};

TEST_F(TwinGateTest, ReloadTwinWithAnAgreeingPKeyChangeApplies) {
  std::uint64_t before = Generation(master());
  master().config().partitions.push_back(
      {"tenant-c", 0x0030, false, std::nullopt, {HostMember("H2_4", "full"), HostMember("H1_3", "limited")}});
  ASSERT_TRUE(master().WriteConfig().ok());
  SmctlResult reply = ApplyWithWait(master(), {"reload", "--twin"});
  ASSERT_EQ(reply.exit_code, 0) << reply.Describe() << master().LogTail();
  std::cout << "reload --twin --wait: " << reply.elapsed.count() << " ms\n";  // a number, not an assertion
  json args = reply.Arguments();
  EXPECT_EQ(args["twin"].value("verdict", ""), "agrees") << reply.Describe();
  EXPECT_EQ(args["twin"].value("mode", ""), "required");
  EXPECT_EQ(reply.VerificationState(), "verified") << reply.Describe();
  EXPECT_NE(TextOf(reply).find("the twin agrees"), std::string::npos) << reply.Describe();
  EXPECT_EQ(Generation(master()), before + 1);
  EXPECT_EQ(MismatchesWith(master()), "") << "the fabric shows the change after --wait";
  json event = LastGateEvent(master());
  EXPECT_EQ(event.value("verdict", ""), "agrees") << event.dump();
  EXPECT_EQ(event.value("applied", false), true);
  ExpectNoTwinLeft();
}

TEST_F(TwinGateTest, ReloadTwinWithADisagreeingChangeIsRefusedAndNothingChanges) {
  LiveSnapshot before = Take();
  DisagreeingChange();
  ASSERT_TRUE(master().WriteConfig().ok());
  SmctlResult reply = ApplyWithWait(master(), {"reload", "--twin"});
  EXPECT_EQ(reply.exit_code, 7) << reply.Describe() << master().LogTail();
  json whole = reply.Json();
  ASSERT_TRUE(whole.is_object()) << reply.Describe();
  EXPECT_EQ(whole["error"].value("code", ""), "twin-refused") << reply.Describe();
  EXPECT_NE(reply.err.find("lmc = 9"), std::string::npos) << "names what disagreed: " << reply.Describe();
  EXPECT_NE(reply.err.find("nothing changed"), std::string::npos) << reply.Describe();
  EXPECT_EQ(reply.Arguments()["twin"].value("verdict", ""), "disagrees");
  ExpectUnchanged(before);
  json event = LastGateEvent(master());
  EXPECT_EQ(event.value("verdict", ""), "disagrees") << event.dump();
  EXPECT_EQ(event.value("applied", true), false);
  ExpectNoTwinLeft();
}

TEST_F(TwinGateTest, AdvisoryAppliesWithAWarning) {
  master().config().extra = "apply:\n  twin: advisory\n";
  ApplyAndExpectVerified();  // same tables: the twin agrees with this one
  std::uint64_t before = Generation(master());
  DisagreeingChange();
  ASSERT_TRUE(master().WriteConfig().ok());
  SmctlResult reply = ApplyWithWait(master(), {"reload"});
  ASSERT_EQ(reply.exit_code, 0) << reply.Describe() << master().LogTail();
  json args = reply.Arguments();
  EXPECT_EQ(args["twin"].value("mode", ""), "advisory") << reply.Describe();
  EXPECT_EQ(args["twin"].value("verdict", ""), "disagrees") << reply.Describe();
  EXPECT_NE(TextOf(reply).find("warning: the twin disagrees with the plan"), std::string::npos) << reply.Describe();
  EXPECT_NE(TextOf(reply).find("lmc = 9"), std::string::npos) << reply.Describe();
  EXPECT_EQ(Generation(master()), before + 1) << "applied";
  EXPECT_EQ(MismatchesWith(master()), "") << "tenant-d is on the fabric";
  EXPECT_EQ(LastGateEvent(master()).value("applied", false), true);
}

TEST_F(TwinGateTest, RequiredGatesAPlainReload) {
  master().config().extra = "apply:\n  twin: required\n";
  json turned_on = ApplyAndExpectVerified();
  EXPECT_EQ(turned_on["twin"].value("verdict", ""), "agrees") << "turning the gate on is gated already";
  LiveSnapshot before = Take();
  DisagreeingChange();
  ASSERT_TRUE(master().WriteConfig().ok());
  SmctlResult reply = master().Smctl({"--json", "reload"}, kTwinSmctlDeadline);
  EXPECT_EQ(reply.exit_code, 7) << reply.Describe() << master().LogTail();
  EXPECT_NE(reply.err.find("refused by the twin gate"), std::string::npos) << reply.Describe();
  ExpectUnchanged(before);
  // A SIGHUP (systemctl reload, config management) is gated the same way.
  ASSERT_TRUE(master().Signal(SIGHUP).ok());
  Status gated = WaitFor("the SIGHUP's twin-gate event", [&] {
    json event = LastGateEvent(master());
    return event.value("by", "") == "signal";
  }, milliseconds(120000), milliseconds(250));
  ASSERT_TRUE(gated.ok()) << gated.message() << master().LogTail();
  EXPECT_EQ(LastGateEvent(master()).value("applied", true), false);
  ExpectUnchanged(before);
}

// An OpenSM that never reaches SUBNET UP in the twin (the installed OpenSM
// is a wrapper that sleeps when started on a twin's files; the daemon's
// deadline for it shortened to 3 s): a clear error, the twin's directory
// and processes gone, the live fabric and OpenSM untouched; a gated reload
// is refused.
TEST_F(TwinGateTest, AnOpenSmThatDoesNotReachSubnetUpInTimeIsAClearErrorAndChangesNothing) {
  const std::string wrapper = master().dir() + "/opensm-wrapper.sh";
  ASSERT_TRUE(WriteFileAtomically(wrapper,
                                  "#!/bin/sh\n"
                                  "case \"$*\" in *\"/twin-\"*) exec sleep 300;; esac\n"
                                  "exec /usr/sbin/opensm \"$@\"\n",
                                  0755)
                  .ok());
  master().Stop();
  master().config().opensm_binary = wrapper;
  ASSERT_TRUE(master().WriteConfig().ok());
  ASSERT_TRUE(master().Start({{"SMSUPD_TWIN_UP_TIMEOUT_S", "3"}}).ok());
  ASSERT_TRUE(master().WaitForSmState("MASTER", kStartDeadline).ok()) << master().LogTail();
  ASSERT_NO_FATAL_FAILURE(WaitForFabricToMatchMaster(kStartDeadline));
  LiveSnapshot before = Take();
  std::string path = master().dir() + "/candidate.yaml";
  ASSERT_TRUE(WriteFileAtomically(path, master().config().Yaml()).ok());
  SmctlResult plan = master().Smctl({"--json", "plan", "--twin", path}, kTwinSmctlDeadline);
  EXPECT_EQ(plan.exit_code, 1) << plan.Describe();
  EXPECT_NE(plan.err.find("OpenSM did not reach SUBNET UP within 3 s"), std::string::npos) << plan.Describe();
  EXPECT_EQ(plan.Arguments().value("kind", ""), "not-up") << plan.Describe();
  ExpectNoTwinLeft();

  master().config().partitions.push_back({"tenant-e", 0x0060, false, std::nullopt, {HostMember("H2_2", "full")}});
  ASSERT_TRUE(master().WriteConfig().ok());
  SmctlResult reload = master().Smctl({"--json", "reload", "--twin"}, kTwinSmctlDeadline);
  EXPECT_EQ(reload.exit_code, 7) << reload.Describe();
  EXPECT_NE(reload.err.find("the twin could not run"), std::string::npos) << reload.Describe();
  EXPECT_EQ(reload.Arguments()["twin"].value("kind", ""), "not-up") << reload.Describe();
  ExpectUnchanged(before);
  ExpectNoTwinLeft();
}

// The twin's directory (beside the control socket) on a tmpfs of 1 MiB:
// the runner refuses to start (it needs 64 MiB), says so, removes its
// directory, and a gated reload is refused. The test runs in a mount
// namespace of its own, so the tmpfs goes with it whatever happens.
class TwinNoSpaceTest : public TwinGateTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(::unshare(CLONE_NEWNS), 0) << std::strerror(errno);
    ASSERT_EQ(::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr), 0) << std::strerror(errno);
    TwinGateTest::SetUp();
  }
  void TearDown() override {
    while (!nodes_.empty()) nodes_.pop_back();
    if (!mounted_.empty()) ::umount2(mounted_.c_str(), MNT_DETACH);
    TwinGateTest::TearDown();
  }
  std::string mounted_;
};

TEST_F(TwinNoSpaceTest, NoDiskSpaceIsAClearErrorAndChangesNothing) {
  const std::string run_dir = std::filesystem::path(master().socket_path()).parent_path();
  master().Stop();
  ASSERT_EQ(::mount("tmpfs", run_dir.c_str(), "tmpfs", 0, "size=1m,mode=0700"), 0) << std::strerror(errno);
  mounted_ = run_dir;
  ASSERT_TRUE(master().Start().ok());
  ASSERT_TRUE(master().WaitForSmState("MASTER", kStartDeadline).ok()) << master().LogTail();
  LiveSnapshot before = Take();
  std::string path = master().dir() + "/candidate.yaml";
  ASSERT_TRUE(WriteFileAtomically(path, master().config().Yaml()).ok());
  SmctlResult plan = master().Smctl({"--json", "plan", "--twin", path}, kTwinSmctlDeadline);
  EXPECT_EQ(plan.exit_code, 1) << plan.Describe();
  EXPECT_NE(plan.err.find("no disk space for the twin"), std::string::npos) << plan.Describe();
  EXPECT_EQ(plan.Arguments().value("kind", ""), "no-space") << plan.Describe();
  ExpectNoTwinLeft();

  master().config().partitions.push_back({"tenant-e", 0x0060, false, std::nullopt, {HostMember("H2_2", "full")}});
  ASSERT_TRUE(master().WriteConfig().ok());
  SmctlResult reload = master().Smctl({"--json", "reload", "--twin"}, kTwinSmctlDeadline);
  EXPECT_EQ(reload.exit_code, 7) << reload.Describe();
  EXPECT_EQ(reload.Arguments()["twin"].value("kind", ""), "no-space") << reload.Describe();
  ExpectUnchanged(before);
  ExpectNoTwinLeft();
}

// ---- Takeover readiness (docs/twin.md "Takeover readiness") ----------------

class TwinReadinessTest : public TwinGateTest {
 protected:
  void ConfigureNode(SmsupdConfig& config) override {
    config.extra = "apply:\n  twin_readiness_interval_s: 60\n";
  }

  static bool HasProblem(ManagementNode& node, const std::string& id) {
    Result<json> status = node.StatusJson();
    if (!status.ok() || !status->contains("health")) return false;
    for (const json& problem : (*status)["health"].value("problems", json::array()))
      if (problem.value("id", "") == id) return true;
    return false;
  }

  static std::string Metric(ManagementNode& node, const std::string& name) {
    SmctlResult metrics = node.Smctl({"metrics"});
    std::istringstream lines(metrics.out);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(name + " ", 0) == 0) return line.substr(name.size() + 1);
    return "";
  }

  static json LastReadinessEvent(ManagementNode& node) {
    json last;
    if (auto events = node.Events(); events.ok())
      for (const json& event : *events)
        if (event.value("kind", "") == "twin-readiness") last = event["details"];
    return last;
  }
};

TEST_F(TwinReadinessTest, AStandbyWhoseRoutingDiffersRaisesTheProblemEventAndMetricEqualConfigsClearIt) {
  ManagementNode* standby = StartNode(fabric().topology().management_nodes()[1], "standby", "STANDBY");
  ASSERT_NE(standby, nullptr);
  // Equal configs: a check runs and finds nothing.
  Status first = WaitFor("the first readiness check", [&] { return !LastReadinessEvent(*standby).is_null(); },
                         milliseconds(120000), milliseconds(500));
  ASSERT_TRUE(first.ok()) << first.message() << standby->LogTail();
  EXPECT_EQ(LastReadinessEvent(*standby).value("result", ""), "no-change") << standby->LogTail();
  EXPECT_FALSE(HasProblem(*standby, "TAKEOVER_WOULD_CHANGE"));
  EXPECT_FALSE(HasProblem(master(), "TAKEOVER_WOULD_CHANGE")) << "the master runs no check";

  standby->config().opensm_options["routing_engine"] = "updn";
  ASSERT_TRUE(standby->WriteConfig().ok());
  SmctlResult reload = standby->Smctl({"reload"}, kTwinSmctlDeadline);
  ASSERT_EQ(reload.exit_code, 0) << reload.Describe();
  Status raised = WaitFor("TAKEOVER_WOULD_CHANGE on the standby",
                          [&] { return HasProblem(*standby, "TAKEOVER_WOULD_CHANGE"); }, milliseconds(120000),
                          milliseconds(500));
  ASSERT_TRUE(raised.ok()) << raised.message() << standby->LogTail();
  EXPECT_EQ(LastReadinessEvent(*standby).value("result", ""), "would-change");
  EXPECT_EQ(Metric(*standby, "smsupd_takeover_would_change"), "1");
  EXPECT_FALSE(HasProblem(*standby, "TWIN_READINESS_FAILED"));
  Result<json> status = standby->StatusJson();
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->value("local_sm", json::object()).value("state", ""), "STANDBY") << "the check changed nothing";

  standby->config().opensm_options.erase("routing_engine");
  ASSERT_TRUE(standby->WriteConfig().ok());
  reload = standby->Smctl({"reload"}, kTwinSmctlDeadline);
  ASSERT_EQ(reload.exit_code, 0) << reload.Describe();
  Status cleared = WaitFor("TAKEOVER_WOULD_CHANGE cleared",
                           [&] { return !HasProblem(*standby, "TAKEOVER_WOULD_CHANGE"); }, milliseconds(120000),
                           milliseconds(500));
  ASSERT_TRUE(cleared.ok()) << cleared.message() << standby->LogTail();
  EXPECT_EQ(LastReadinessEvent(*standby).value("result", ""), "no-change");
  EXPECT_EQ(Metric(*standby, "smsupd_takeover_would_change"), "0");
}

}  // namespace
}  // namespace smsupd::testbed::pkey
