#include "daemon/opensm/restart_backoff.h"

#include <gtest/gtest.h>

namespace smsupd {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

struct BackoffStep {
  Clock::Duration ran_for;
  Clock::Duration expected_delay;
};

TEST(RestartBackoffTest, FollowsTheScheduleOfShortAndLongRuns) {
  const BackoffStep steps[] = {
      {seconds(2), seconds(1)},     // first crash: 1 s
      {seconds(1), seconds(2)},     // doubling
      {seconds(5), seconds(4)},
      {seconds(0), seconds(8)},
      {seconds(3), seconds(16)},
      {seconds(3), seconds(32)},
      {seconds(3), seconds(60)},    // capped at 60 s
      {seconds(60), seconds(60)},   // exactly 60 s is not "more than 60 s"
      {seconds(61), seconds(0)},    // a long run: restart at once
      {seconds(1), seconds(1)},     // ... and the schedule starts over
      {minutes(10), seconds(0)},
  };
  RestartBackoff backoff;
  int index = 0;
  for (const auto& step : steps) {
    EXPECT_EQ(backoff.NextDelay(step.ran_for), step.expected_delay) << "step " << index;
    ++index;
  }
}

TEST(CrashLoopDetectorTest, FiveExitsWithinFiveMinutesIsALoop) {
  CrashLoopDetector detector;
  Clock::TimePoint t0{};
  for (int i = 0; i < 4; ++i) detector.RecordExit(t0 + minutes(i));
  EXPECT_FALSE(detector.InLoop(t0 + minutes(4)));
  detector.RecordExit(t0 + minutes(4));
  EXPECT_TRUE(detector.InLoop(t0 + minutes(4)));
  EXPECT_TRUE(detector.InLoop(t0 + minutes(5)));
  // The first exit leaves the window: four remain.
  EXPECT_FALSE(detector.InLoop(t0 + minutes(5) + seconds(1)));
}

TEST(CrashLoopDetectorTest, SpreadOutExitsAreNoLoop) {
  CrashLoopDetector detector;
  Clock::TimePoint t0{};
  for (int i = 0; i < 20; ++i) {
    detector.RecordExit(t0 + minutes(2 * i));
    EXPECT_FALSE(detector.InLoop(t0 + minutes(2 * i))) << "exit " << i;
  }
}

}  // namespace
}  // namespace smsupd
