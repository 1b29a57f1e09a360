// The MAD thread: runs Fabric calls one at a time on a dedicated thread and
// delivers each result on a boost::asio::io_context.
//
// Why a thread: umad file descriptors cannot go into Asio's reactor (under
// umad2sim they are fake: epoll/select do not see them), and every Fabric
// call blocks until its MADs are answered or time out.
//
// Deadlines: every call has one (the caller's, or Options::default_deadline).
// A watchdog timer on the io_context delivers Error "deadline exceeded" when
// it passes, whether or not the call has returned -- a simulated umad device
// can keep a dropped MAD waiting for ever, and the event loop must not care.
// What happens to a stuck call: it keeps the MAD thread until it returns (a
// thread cannot be cancelled safely); its late result is dropped. Calls
// queued behind it are not started once their own deadline has passed: they
// get the deadline error too, so the caller always hears back in time.
// Stuck() tells the daemon the MAD thread is wedged (the failover controller
// raises MAD_THREAD_STUCK).
//
// Each `done` runs exactly once, on the io_context, unless Stop() ran first.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/result.h"
#include "daemon/fabric/fabric.h"

namespace smsupd {

class MadWorker {
 public:
  struct Options {
    // For calls submitted without one: a few MAD timeouts and retries.
    std::chrono::milliseconds default_deadline{2000};
    // How long Stop() waits for a running call before leaving the thread
    // behind (detached, with the Fabric it owns).
    std::chrono::milliseconds stop_grace{1000};
  };

  MadWorker(boost::asio::io_context& io, std::shared_ptr<Fabric> fabric);
  MadWorker(boost::asio::io_context& io, std::shared_ptr<Fabric> fabric, Options options);
  ~MadWorker();
  MadWorker(const MadWorker&) = delete;
  MadWorker& operator=(const MadWorker&) = delete;

  // Queues `call(Fabric&)` for the MAD thread; `done(result)` runs on the
  // io_context with its result, or with an Error once `deadline` has passed.
  // The result type R (Result<T> or Status) must be constructible from Error.
  template <typename Call, typename Done>
  void Submit(Call call, Done done, std::chrono::milliseconds deadline);
  template <typename Call, typename Done>
  void Submit(Call call, Done done) {
    Submit(std::move(call), std::move(done), options_.default_deadline);
  }

  // Stops the thread. Queued calls are dropped and no `done` runs after
  // Stop() returns; call it from the io_context's thread (or while the
  // io_context is not running). Idempotent; the destructor calls it.
  void Stop();

  // True while the call on the MAD thread is past its deadline.
  bool Stuck() const;
  // Calls waiting for the MAD thread (not counting the running one).
  size_t Queued() const;

 private:
  struct Job {
    std::function<void(Fabric&)> run;
    std::shared_ptr<std::atomic<bool>> settled;  // delivered (or timed out)
    std::chrono::steady_clock::time_point deadline;
  };
  struct Shared;  // state the thread keeps even if left behind by Stop()

  // The MAD thread's only way to the io_context. Close() (from Stop) makes
  // later posts no-ops and handlers already queued do nothing, so a thread
  // left behind never touches an io_context that may be gone.
  class Outlet {
   public:
    explicit Outlet(boost::asio::io_context& io) : io_(&io) {}
    template <typename F>
    void Post(F handler) {
      std::lock_guard lock(mutex_);
      if (io_ != nullptr) boost::asio::post(*io_, std::move(handler));
    }
    void Close() {
      std::lock_guard lock(mutex_);
      io_ = nullptr;
      open_.store(false);
    }
    bool open() const { return open_.load(); }

   private:
    std::mutex mutex_;
    boost::asio::io_context* io_;
    std::atomic<bool> open_{true};
  };

  template <typename R>
  struct Pending {
    std::shared_ptr<std::atomic<bool>> settled = std::make_shared<std::atomic<bool>>(false);
    std::function<void(R)> done;
    void Settle(R result) {
      if (!settled->exchange(true)) done(std::move(result));
    }
  };

  void Enqueue(Job job);
  static void Loop(std::shared_ptr<Shared> shared);

  boost::asio::io_context& io_;
  Options options_;
  std::shared_ptr<Shared> shared_;
  std::shared_ptr<Outlet> outlet_;
  std::thread thread_;
};

template <typename Call, typename Done>
void MadWorker::Submit(Call call, Done done, std::chrono::milliseconds deadline) {
  using R = std::invoke_result_t<Call&, Fabric&>;
  static_assert(std::is_constructible_v<R, Error>, "a fabric call returns Result<T> or Status");
  auto pending = std::make_shared<Pending<R>>();
  pending->done = std::move(done);
  // The watchdog. Only io-side handlers own the timer; the MAD thread holds
  // a weak reference, so the timer always dies on the io_context's thread.
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, deadline);
  timer->async_wait([pending, timer, outlet = outlet_, deadline](const boost::system::error_code& ec) {
    if (ec || !outlet->open()) return;
    pending->Settle(R(Error{"fabric call exceeded its deadline of " +
                            std::to_string(deadline.count()) + " ms"}));
  });
  std::weak_ptr<boost::asio::steady_timer> watchdog = timer;
  auto run = [pending, watchdog, call = std::move(call), outlet = outlet_](Fabric& fabric) mutable {
    R result = call(fabric);
    outlet->Post([pending, watchdog, outlet, result = std::move(result)]() mutable {
      if (!outlet->open()) return;
      if (auto timer = watchdog.lock()) timer->cancel();
      pending->Settle(std::move(result));
    });
  };
  Enqueue(Job{std::move(run), pending->settled, std::chrono::steady_clock::now() + deadline});
}

}  // namespace smsupd
