// RequestJobs: root's lane is never held up by a member's jobs, one member
// has one job at a time, a job's deadline and anything it throws end the
// job with an answer, and the member lane runs at a lower priority.
#include "daemon/apply/request_jobs.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <future>
#include <new>
#include <stdexcept>

namespace smsupd {
namespace {

using Lane = RequestJobs::Lane;
using Submitted = RequestJobs::Submitted;
using namespace std::chrono_literals;

RequestJobs::Failed NotExpected() {
  return [](const std::string& why) { ADD_FAILURE() << "job failed: " << why; };
}

TEST(RequestJobsTest, RootsJobRunsWhileAMembersJobStillRuns) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> member_started;
  std::promise<void> root_done;
  RequestJobs jobs;  // after what its jobs use: joined before it goes
  ASSERT_EQ(jobs.Submit(Lane::kMember, 1000,
                        [&, released](const Deadline&) {
                          member_started.set_value();
                          released.wait();
                        },
                        NotExpected()),
            Submitted::kQueued);
  member_started.get_future().wait();
  ASSERT_EQ(jobs.Submit(Lane::kOwner, 0, [&](const Deadline&) { root_done.set_value(); }, NotExpected()),
            Submitted::kQueued);
  EXPECT_EQ(root_done.get_future().wait_for(10s), std::future_status::ready)
      << "root's job waited for the member's";
  release.set_value();
}

TEST(RequestJobsTest, AMemberHasOneJobWaitingOtherMembersQueueAndTheLaneIsBounded) {
  // Declared before the jobs: the last job below may still run while the
  // jobs are destroyed, and it counts here.
  std::atomic<int> ran{0};
  auto counted = [&ran](const Deadline&) { ++ran; };
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  auto blocked = [released, &started](const Deadline&) {
    started.set_value();
    released.wait();
  };
  RequestJobs jobs(/*capacity=*/2);
  EXPECT_EQ(jobs.Submit(Lane::kMember, 1000, blocked, NotExpected()), Submitted::kQueued);
  started.get_future().wait();  // running, no longer waiting
  // A job that runs (and may have answered) leaves its caller free to
  // queue the next one; a second one waiting is refused.
  EXPECT_EQ(jobs.Submit(Lane::kMember, 1000, counted, NotExpected()), Submitted::kQueued);
  EXPECT_EQ(jobs.Submit(Lane::kMember, 1000, counted, NotExpected()), Submitted::kCallerBusy);
  EXPECT_EQ(jobs.Submit(Lane::kMember, 1001, counted, NotExpected()), Submitted::kQueued);
  EXPECT_EQ(jobs.Submit(Lane::kMember, 1002, counted, NotExpected()), Submitted::kLaneFull);
  // The owner lane has its own room; root may queue several.
  EXPECT_EQ(jobs.Submit(Lane::kOwner, 0, counted, NotExpected()), Submitted::kQueued);
  EXPECT_EQ(jobs.Submit(Lane::kOwner, 0, counted, NotExpected()), Submitted::kQueued);
  release.set_value();
  for (auto until = std::chrono::steady_clock::now() + 10s; ran < 4 && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(ran, 4);
  EXPECT_EQ(jobs.Submit(Lane::kMember, 1000, counted, NotExpected()), Submitted::kQueued)
      << "a member may submit again once its job is done";
}

TEST(RequestJobsTest, ADeadlineOrAThrowEndsTheJobWithAnAnswerAndTheLaneGoesOn) {
  std::promise<std::string> slow, hungry, broken;
  std::promise<void> after;
  RequestJobs jobs(RequestJobs::kCapacity, /*time_limit=*/50ms);
  auto answer = [](std::promise<std::string>& promise) {
    return [&promise](const std::string& why) { promise.set_value(why); };
  };
  jobs.Submit(Lane::kMember, 1, [](const Deadline& deadline) { for (;;) deadline.Check(); }, answer(slow));
  jobs.Submit(Lane::kMember, 2, [](const Deadline&) { throw std::bad_alloc(); }, answer(hungry));
  jobs.Submit(Lane::kMember, 3, [](const Deadline&) { throw std::out_of_range("x"); }, answer(broken));
  EXPECT_EQ(slow.get_future().get(), "stopped after 0 s, the time a request may take");
  EXPECT_EQ(hungry.get_future().get(), "ran out of memory");
  EXPECT_EQ(broken.get_future().get(), "failed: x");
  jobs.Submit(Lane::kMember, 1, [&](const Deadline&) { after.set_value(); }, NotExpected());
  EXPECT_EQ(after.get_future().wait_for(10s), std::future_status::ready);
}

TEST(RequestJobsTest, MembersJobsRunOnlyOnIdleCpuRootsAtTheDaemonsPriority) {
  std::promise<int> member_policy, root_policy;
  RequestJobs jobs;
  jobs.Submit(Lane::kMember, 1000, [&](const Deadline&) { member_policy.set_value(::sched_getscheduler(0)); },
              NotExpected());
  jobs.Submit(Lane::kOwner, 0, [&](const Deadline&) { root_policy.set_value(::sched_getscheduler(0)); },
              NotExpected());
  EXPECT_EQ(root_policy.get_future().get(), ::sched_getscheduler(0));
  EXPECT_EQ(member_policy.get_future().get(), SCHED_IDLE);
}

}  // namespace
}  // namespace smsupd
