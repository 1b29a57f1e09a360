#include "daemon/twin/takeover_readiness.h"

#include <spdlog/spdlog.h>

#include "common/problems.h"
#include "common/control_wire.h"
#include "daemon/twin/twin_gate.h"

namespace smsupd {
namespace {

std::string ReadinessFirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

const char* ReadinessResultName(ReadinessResult result) {
  switch (result) {
    case ReadinessResult::kNoChange: return "no-change";
    case ReadinessResult::kWouldChange: return "would-change";
    case ReadinessResult::kFailed: return "failed";
  }
  return "failed";
}

ReadinessResult ClassifyReadiness(const TwinRunResult& run, std::string* text) {
  if (!run.ok) {
    *text = run.error + " (" + run.kind + ")";
    return ReadinessResult::kFailed;
  }
  if (const twin::UnreadTables unread = twin::UnreadTablesOf(run.report); unread.any()) {
    *text = "the comparison is incomplete: " + unread.Text();
    return ReadinessResult::kFailed;
  }
  *text = ReadinessFirstLine(run.text);
  const bool changed = run.report.is_object() && run.report.value("changed", true);
  return changed ? ReadinessResult::kWouldChange : ReadinessResult::kNoChange;
}

TakeoverReadiness::TakeoverReadiness(boost::asio::io_context& io, const RunningConfig& running, TwinPlanCommand& twin,
                                     Reporter& reporter, std::function<bool()> standby)
    : running_(running), twin_(twin), reporter_(reporter), standby_(std::move(standby)), timer_(io) {}

TakeoverReadiness::~TakeoverReadiness() {
  *alive_ = false;
  Stop();
}

void TakeoverReadiness::Start() { Arm(); }

void TakeoverReadiness::Stop() {
  stopped_ = true;
  timer_.cancel();
}

void TakeoverReadiness::Arm() {
  if (stopped_) return;
  timer_.expires_after(kTick);
  timer_.async_wait([this](const boost::system::error_code& error) {
    if (!error) Tick();
  });
}

void TakeoverReadiness::ClearAll() {
  reporter_.ClearProblem(kProblemTakeoverWouldChange);
  reporter_.ClearProblem(kProblemTwinReadinessFailed);
  last_result_.reset();
  last_run_.reset();
}

void TakeoverReadiness::Tick() {
  Arm();
  if (running_check_) return;
  const int interval_s = running_.config.apply.twin_readiness_interval_s;
  const bool standby = standby_ && standby_();
  standby_ticks_ = standby ? standby_ticks_ + 1 : 0;
  if (interval_s == 0 || !standby) {
    if (last_result_ || last_run_) ClearAll();
    return;
  }
  if (standby_ticks_ < 2) return;  // let a new standby settle first
  const auto now = std::chrono::steady_clock::now();
  const std::uint64_t generation = running_.generation.number;
  const bool due = !last_run_ || now - *last_run_ >= std::chrono::seconds(interval_s) ||
                   generation != last_generation_;
  if (!due) return;
  auto alive = alive_;
  const bool started = twin_.RunConfig(running_.config, false, [this, alive, generation](TwinRunResult run) {
    if (*alive) Done(generation, std::move(run));
  });
  if (!started) return;  // another twin runs: the next tick tries again
  running_check_ = true;
  last_run_ = now;
  last_generation_ = generation;
}

void TakeoverReadiness::Done(std::uint64_t generation, TwinRunResult run) {
  running_check_ = false;
  if (stopped_) return;
  // The node may have stopped being STANDBY while the twin ran.
  if (!standby_ || !standby_()) return ClearAll();
  std::string text;
  const ReadinessResult result = ClassifyReadiness(run, &text);
  switch (result) {
    case ReadinessResult::kWouldChange:
      reporter_.ClearProblem(kProblemTwinReadinessFailed);
      reporter_.RaiseProblem(kProblemTakeoverWouldChange, "a takeover by this node would change the fabric: " + text);
      break;
    case ReadinessResult::kNoChange:
      reporter_.ClearProblem(kProblemTwinReadinessFailed);
      reporter_.ClearProblem(kProblemTakeoverWouldChange);
      break;
    case ReadinessResult::kFailed:
      reporter_.RaiseProblem(kProblemTwinReadinessFailed, "the takeover readiness check could not run the twin: " + text);
      break;
  }
  const bool changed = last_result_ != result;
  last_result_ = result;
  if (!changed) return;
  spdlog::log(result == ReadinessResult::kNoChange ? spdlog::level::info : spdlog::level::warn,
              "TWIN_READINESS {} (generation {}): {}", ReadinessResultName(result), generation, text);
  reporter_.AddEvent(control::kEventTwinReadiness,
                     {{"result", ReadinessResultName(result)}, {"generation", generation}, {"text", text}});
}

}  // namespace smsupd
