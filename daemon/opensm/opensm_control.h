// The two faces of the local OpenSM that other subsystems use; both are
// implemented by OpenSmController (opensm_controller.h), and unit tests of
// the callers implement them with recorders.
//
//   LocalSmControl    the failover policy's actions: priority, start, stop
//   OpenSmConfigSink  the apply pipeline: render, install, signal
//
// Every rendering of opensm.conf carries the priority the failover policy
// commands (the policy owns the decision, OpenSmController keeps it), so a
// config apply never undoes a failover and a failover never undoes an apply.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/guid.h"
#include "common/result.h"
#include "config/config.h"
#include "config/renderer.h"

namespace smsupd {

class LocalSmControl {
 public:
  virtual ~LocalSmControl() = default;
  // The policy's commanded sm_priority after a step (nullopt: none yet). A
  // change that came without an action (an adopted OpenSM keeps its own
  // priority) only rewrites opensm.conf, so the next heavy sweep, which
  // re-reads it, does not change the priority behind the policy's back.
  virtual void FollowPriority(std::optional<int> priority) = 0;
  // opensm.conf at `priority`, then SIGHUP: OpenSM re-reads sm_priority in
  // the heavy sweep the signal forces, even as a STANDBY.
  virtual void SetPriority(int priority) = 0;
  // Start OpenSM at `priority` (first start, or `restart` after an exit).
  virtual void Start(int priority, bool restart) = 0;
  // Stop OpenSM and do not restart it until Start.
  virtual void Stop() = 0;
  // OpenSM just exited: do not restart it on its own (back-off) until the
  // next Start, which the policy sends once the new master it handed over
  // to has swept this node (bounded: the supervisor restarts after 30 s).
  // The IsSM bit the dead OpenSM left on the port is cleared at once, so
  // the new master's sweep does not wait on SMInfo to this port.
  virtual void HoldRestart() = 0;
  // SIGKILL OpenSM now: it has just handed over (a HANDOVER the new master
  // answered), and must be gone before that master's first sweep reaches
  // this node. Not a crash; the restart is held as by HoldRestart. False
  // when OpenSM is not running (nothing was killed).
  virtual bool KillAfterHandover() = 0;
  // SIGSTOP OpenSM for the HANDOVER that KillAfterHandover follows: frozen,
  // it answers no SMInfo, so the new master's first sweep cannot read it
  // MASTER at a higher priority and hand the mastership straight back to
  // an SM about to die. Bounded (the supervisor resumes it by itself).
  // False when OpenSM is not running.
  virtual bool PauseForHandover() = 0;
  // SIGCONT after PauseForHandover: the HANDOVER was not answered.
  virtual void ResumeAfterHandover() = 0;
};

class OpenSmConfigSink {
 public:
  virtual ~OpenSmConfigSink() = default;
  // Both files as Install would write them (for a stored generation).
  virtual config::RenderedFiles Render(const config::Config& config, Guid port) const = 0;
  // Writes both files atomically; returns the hash of the YAML rendered.
  virtual Result<std::string> Install(const config::Config& config, Guid port) = 0;
  // SIGHUP: a heavy sweep that re-reads partitions.conf and the runtime options.
  // (A restart for startup-only options goes through the failover policy,
  // which hands over first: ApplyHooks::restart_opensm.)
  virtual Status Hangup() = 0;
  // How many heavy sweeps OpenSM has reported done ("SUBNET UP" lines in its
  // log, read now). The line may never come: OpenSM buffers INFO lines.
  virtual std::uint64_t SweepsSeen() = 0;
};

}  // namespace smsupd
