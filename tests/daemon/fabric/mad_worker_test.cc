#include "daemon/fabric/mad_worker.h"

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>

#include <chrono>
#include <memory>
#include <optional>

#include "tests/daemon/fabric/fake_fabric.h"

namespace smsupd {
namespace {

using std::chrono::milliseconds;

class MadWorkerTest : public ::testing::Test {
 protected:
  MadWorkerTest() : fabric_(std::make_shared<FakeFabric>()), guard_(io_.get_executor()) {
    fabric_->AddSm(1, SmInfo{0x10, 0, 0, 15, SmState::kMaster});
    fabric_->AddSm(2, SmInfo{0x20, 0, 0, 5, SmState::kStandby});
  }

  // Runs the io_context until `done` holds; false if it took over 10 s
  // (a hang, not a timing assertion).
  template <typename Pred>
  bool RunUntil(Pred done) {
    auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
      if (std::chrono::steady_clock::now() > limit) return false;
      io_.run_one_for(milliseconds(10));
    }
    return true;
  }

  boost::asio::io_context io_;
  std::shared_ptr<FakeFabric> fabric_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
};

TEST_F(MadWorkerTest, DeliversResultOnTheIoContext) {
  MadWorker worker(io_, fabric_);
  std::optional<Result<SmInfo>> got;
  std::thread::id delivered_on;
  worker.Submit([](Fabric& f) { return f.GetSmInfo(2); },
                [&](Result<SmInfo> r) {
                  got = r;
                  delivered_on = std::this_thread::get_id();
                });
  ASSERT_TRUE(RunUntil([&] { return got.has_value(); }));
  ASSERT_TRUE(got->ok());
  EXPECT_EQ((*got)->guid, 0x20u);
  EXPECT_EQ((*got)->state, SmState::kStandby);
  EXPECT_EQ(delivered_on, std::this_thread::get_id());
}

TEST_F(MadWorkerTest, ErrorsAreValues) {
  MadWorker worker(io_, fabric_);
  std::optional<Result<SmInfo>> got;
  worker.Submit([](Fabric& f) { return f.GetSmInfo(99); }, [&](Result<SmInfo> r) { got = r; });
  ASSERT_TRUE(RunUntil([&] { return got.has_value(); }));
  EXPECT_FALSE(got->ok());
  EXPECT_NE(got->error().message.find("LID 99"), std::string::npos);
}

TEST_F(MadWorkerTest, RunsCallsInSubmissionOrder) {
  MadWorker worker(io_, fabric_);
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) {
    worker.Submit([](Fabric& f) { return f.GetSmInfo(1); },
                  [&order, i](Result<SmInfo>) { order.push_back(i); });
  }
  ASSERT_TRUE(RunUntil([&] { return order.size() == 5; }));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST_F(MadWorkerTest, StatusCallsWork) {
  MadWorker worker(io_, fabric_);
  std::optional<Status> sent;
  worker.Submit([](Fabric& f) { return f.SendHandover(2, SmInfo{0x10, 0, 0, 15, SmState::kMaster}); },
                [&](Status s) { sent = s; });
  ASSERT_TRUE(RunUntil([&] { return sent.has_value(); }));
  EXPECT_TRUE(sent->ok()) << sent->message();
  EXPECT_EQ(fabric_->sm(2).state, SmState::kMaster);
}

TEST_F(MadWorkerTest, StuckCallGetsDeadlineErrorAndLateResultIsDropped) {
  MadWorker worker(io_, fabric_);
  fabric_->BlockCalls();
  int deliveries = 0;
  std::optional<Result<SmInfo>> got;
  worker.Submit([](Fabric& f) { return f.GetSmInfo(1); },
                [&](Result<SmInfo> r) {
                  ++deliveries;
                  got = r;
                },
                milliseconds(20));
  ASSERT_TRUE(RunUntil([&] { return got.has_value(); }));
  EXPECT_FALSE(got->ok());
  EXPECT_NE(got->error().message.find("deadline"), std::string::npos);
  // The call sits at the gate once the MAD thread has picked it up (under a
  // sanitizer that can come after the deadline error).
  EXPECT_TRUE(RunUntil([&] { return worker.Stuck(); }));

  fabric_->ReleaseCalls();
  std::optional<Result<SmInfo>> next;
  worker.Submit([](Fabric& f) { return f.GetSmInfo(2); }, [&](Result<SmInfo> r) { next = r; });
  ASSERT_TRUE(RunUntil([&] { return next.has_value(); }));
  EXPECT_TRUE(next->ok());
  EXPECT_EQ(deliveries, 1);
  EXPECT_FALSE(worker.Stuck());
}

TEST_F(MadWorkerTest, CallsQueuedBehindAStuckOneTimeOutAndAreNeverSent) {
  MadWorker worker(io_, fabric_);
  fabric_->BlockCalls();
  std::optional<Result<SmInfo>> first, second;
  worker.Submit([](Fabric& f) { return f.GetSmInfo(1); }, [&](Result<SmInfo> r) { first = r; },
                milliseconds(20));
  worker.Submit([](Fabric& f) { return f.GetSmInfo(2); }, [&](Result<SmInfo> r) { second = r; },
                milliseconds(20));
  ASSERT_TRUE(RunUntil([&] { return first.has_value() && second.has_value(); }));
  EXPECT_FALSE(first->ok());
  EXPECT_FALSE(second->ok());
  int calls_before_release = fabric_->calls();
  fabric_->ReleaseCalls();
  std::optional<Status> probe;
  worker.Submit([](Fabric&) { return Status::Ok(); }, [&](Status s) { probe = s; });
  ASSERT_TRUE(RunUntil([&] { return probe.has_value(); }));
  // The second call was answered by the watchdog while queued: not run.
  EXPECT_EQ(fabric_->calls(), calls_before_release);
}

TEST_F(MadWorkerTest, StopDropsPendingCallsWithoutCallingBack) {
  auto worker = std::make_unique<MadWorker>(io_, fabric_);
  fabric_->BlockCalls();
  bool called = false;
  worker->Submit([](Fabric& f) { return f.GetSmInfo(1); }, [&](Result<SmInfo>) { called = true; });
  worker->Submit([](Fabric& f) { return f.GetSmInfo(2); }, [&](Result<SmInfo>) { called = true; });
  ASSERT_TRUE(RunUntil([&] { return fabric_->blocked_calls() == 1; }));
  fabric_->ReleaseCalls();
  worker->Stop();
  io_.poll();
  EXPECT_FALSE(called);
  worker.reset();
}

TEST_F(MadWorkerTest, StopLeavesAWedgedThreadBehindInsteadOfHanging) {
  MadWorker::Options options;
  options.stop_grace = milliseconds(20);
  auto worker = std::make_unique<MadWorker>(io_, fabric_, options);
  fabric_->BlockCalls();
  worker->Submit([](Fabric& f) { return f.GetSmInfo(1); }, [](Result<SmInfo>) {});
  ASSERT_TRUE(RunUntil([&] { return fabric_->blocked_calls() == 1; }));
  worker.reset();  // returns although the call is still blocked
  fabric_->ReleaseCalls();  // the left-behind thread finishes and exits
  // It drops its share of the fabric as it exits.
  ASSERT_TRUE(RunUntil([&] { return fabric_.use_count() == 1; }));
}

TEST_F(MadWorkerTest, SimulatedDelayAdvancesTheInjectedClock) {
  milliseconds fake_time{0};
  fabric_->SetDelay(milliseconds(300), [&](milliseconds d) { fake_time += d; });
  MadWorker worker(io_, fabric_);
  std::optional<Result<SmInfo>> got;
  worker.Submit([](Fabric& f) { return f.GetSmInfo(1); }, [&](Result<SmInfo> r) { got = r; });
  ASSERT_TRUE(RunUntil([&] { return got.has_value(); }));
  EXPECT_TRUE(got->ok());
  EXPECT_EQ(fake_time, milliseconds(300));
}

}  // namespace
}  // namespace smsupd
