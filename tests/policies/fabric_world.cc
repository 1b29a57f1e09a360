#include "tests/policies/fabric_world.h"

#include <stdexcept>
#include <utility>

#include "policies/priority_plan.h"

namespace smsupd::policy::testing {

SimNode& FabricWorld::AddNode(std::string name, Guid guid, Role role, bool preempt) {
  auto n = std::make_unique<SimNode>();
  n->name = std::move(name);
  n->guid = guid;
  n->lid = static_cast<std::uint16_t>(nodes_.size() + 1);
  n->config.local_guid = guid;
  n->config.role = role;
  n->config.preempt = preempt;
  n->config.hold_time = Duration(3000);
  n->policy = std::make_unique<FailoverPolicy>(n->config, now_);
  nodes_.push_back(std::move(n));
  return *nodes_.back();
}

SimNode& FabricWorld::node(const std::string& name) {
  for (auto& n : nodes_)
    if (n->name == name) return *n;
  throw std::out_of_range(name);
}

std::vector<SimNode*> FabricWorld::nodes() {
  std::vector<SimNode*> out;
  for (auto& n : nodes_) out.push_back(n.get());
  return out;
}

SimNode* FabricWorld::ByGuid(Guid guid) {
  for (auto& n : nodes_)
    if (n->guid == guid) return n.get();
  return nullptr;
}

void FabricWorld::Step(int count) {
  for (int i = 0; i < count; ++i) {
    now_ += kStep;
    ++step_count_;
    for (auto& n : nodes_) {
      if (n->restart_in > 0 && --n->restart_in == 0 && n->node_up)
        StartOpenSm(*n, n->restart_priority);
      if (n->sweep_in > 0 && --n->sweep_in == 0) HeavySweep(*n);
    }
    Settle();
    for (auto& n : nodes_) {
      if (!n->smsupd_up || !n->node_up) continue;
      n->last_actions = n->policy->Decide(Observe(*n), now_);
      n->history.insert(n->history.end(), n->last_actions.begin(), n->last_actions.end());
      Execute(*n, n->last_actions);
    }
    Settle();
    const std::string master = MasterName();
    configured_ |= !master.empty();
    if (!master.empty() && master != last_master_) ++master_changes_;
    if (!master.empty()) last_master_ = master;
  }
}

Observation FabricWorld::Observe(SimNode& n) {
  Observation obs;
  obs.opensm.running = n.running;
  obs.opensm.exit_info = n.exit_info;
  if (n.running && !n.hung) obs.local_sm = LocalSmInfo{n.state, n.priority, n.act_count};
  // A port stays Init until some master has configured it.
  obs.local_port = LocalPort{Masters().empty() && !configured_ ? 2 : 4, n.lid, 0};
  if (n.port_down) obs.local_port->port_state = 1;
  obs.sm_key_mismatch = n.sm_key_mismatch;
  obs.direct_handover_failed = std::exchange(n.handover_failed, false);
  obs.master = WatchMaster(n);
  // From the SA while there is a master, else from direct SMInfo reads of
  // the SMs last known (what the daemon is asked to do without an SA).
  if (!n.port_down && step_count_ % sa_every_ == 0) {
    std::vector<SmEntry> sms;
    for (auto& s : nodes_)
      if (Answers(*s)) sms.push_back(SmEntry{s->guid, s->lid, s->state, s->priority});
    obs.sms = sms;
  }
  if (!n.pending_commands.empty()) {
    obs.command = n.pending_commands.front();
    n.pending_commands.erase(n.pending_commands.begin());
  }
  return obs;
}

// The daemon polls the master its port's SM LID points to; it follows a new
// master at once and keeps polling a silent one.
std::optional<MasterWatch> FabricWorld::WatchMaster(SimNode& n) {
  const SimNode* current = nullptr;
  for (const SimNode* m : Masters())
    if (m != &n && Answers(*m) && !n.port_down) current = m;
  if (n.running && n.state == SmState::kMaster) {
    n.watched.reset();
    n.misses = 0;
  } else if (current && n.watched != current->guid) {
    n.watched = current->guid;
    n.misses = 0;
  }
  if (!n.watched) return std::nullopt;
  SimNode& w = *ByGuid(*n.watched);
  bool answered = Answers(w) && !n.port_down;
  if (answered && drop_[w.name] > 0) { --drop_[w.name]; answered = false; }
  if (answered) { n.misses = 0; w.act_count += w.act_frozen ? 0 : 1; } else { ++n.misses; }
  const bool port_answers = w.node_up && !n.port_down;
  return MasterWatch{w.guid, w.lid, w.priority, w.state, n.misses, w.act_count,
                     n.misses > 0 ? std::optional<bool>(port_answers) : std::nullopt};
}

void FabricWorld::Execute(SimNode& n, const std::vector<Action>& actions) {
  using K = Action::Kind;
  for (const Action& a : actions) {
    switch (a.kind) {
      case K::kSetLocalPriority: SetPriority(n, a.priority); break;
      case K::kSendHandover:
        if (SimNode* t = ByGuid(a.target_guid); t && Answers(*t)) {
          if (t->state == SmState::kStandby) Handover(*t);
          else if (t->state == SmState::kMaster) HeavySweep(*t);
        }
        break;
      case K::kHandOverThenKill:
        // Killed only once the target answered and reads MASTER.
        if (SimNode* t = ByGuid(a.target_guid); t && Answers(*t) && t->state == SmState::kStandby)
          Handover(*t);
        if (SimNode* t = ByGuid(a.target_guid); t && Answers(*t) && t->state == SmState::kMaster) {
          if (n.running) n.running = false, n.state = SmState::kNotActive, n.exit_info = "signal 9";
        } else {
          n.handover_failed = true;
        }
        break;
      case K::kTakeOver:
        if (Answers(n) && n.state == SmState::kStandby) Handover(n);
        break;
      case K::kStartOpenSm: StartOpenSm(n, a.priority); break;
      case K::kRestartOpenSm: n.restart_in = 3, n.restart_priority = a.priority; break;
      case K::kStopOpenSm:
        n.restart_in = -1;
        if (n.running) n.running = false, n.state = SmState::kNotActive, n.exit_info = "exit 0";
        break;
      case K::kReplyToOperator:
        n.replies.push_back((a.ok ? "ok: " : "refused: ") + a.text);
        break;
      default: break;
    }
  }
}

// SIGHUP = heavy sweep with the new priority (osm_state_mgr.c do_sweep): a
// MASTER hands over to a higher-ranked SM; a STANDBY that now outranks the
// master is the path seen to fail (docs/opensm-behaviour.md "Controlled failover: safe and unsafe
// priority changes"), recorded as such.
void FabricWorld::SetPriority(SimNode& n, int priority) {
  const bool raised = priority > n.priority;
  n.priority = priority;
  if (!Answers(n)) return;
  if (n.state == SmState::kStandby) {
    for (const SimNode* m : Masters())
      if (m != &n && OutRanks(n.priority, n.guid, m->priority, m->guid)) bad_path_used_ = true;
    if (raised) SweepOnTrap144(n);
  }
  StartHeavySweep(n);
}

void FabricWorld::StartHeavySweep(SimNode& n) {
  if (sweep_steps_ == 0) HeavySweep(n);
  else if (n.sweep_in < 0) n.sweep_in = sweep_steps_;
}

// A STANDBY sends the master trap 144 when it enters STANDBY and when its
// priority rises; the master sweeps on it (sweep_on_trap).
void FabricWorld::SweepOnTrap144(const SimNode& from) {
  for (auto& m : nodes_)
    if (m.get() != &from && Answers(*m) && m->state == SmState::kMaster) StartHeavySweep(*m);
}

// Every heavy sweep re-reads opensm.conf, which the node's smsupd keeps at
// the priority its policy commands.
void FabricWorld::HeavySweep(SimNode& n) {
  n.sweep_in = -1;
  if (!Answers(n)) return;
  if (n.smsupd_up && n.policy && n.policy->commanded_priority())
    n.priority = *n.policy->commanded_priority();
  SimNode* higher = nullptr;
  for (auto& o : nodes_) {
    if (o.get() == &n || !Answers(*o) || o->state == SmState::kNotActive) continue;
    if (o->never_master) continue;
    if (OutRanks(o->priority, o->guid, n.priority, n.guid) &&
        (!higher || OutRanks(o->priority, o->guid, higher->priority, higher->guid)))
      higher = o.get();
  }
  if (n.state == SmState::kMaster && higher) {
    n.state = SmState::kStandby;
    higher->state = SmState::kMaster;
  }
}

void FabricWorld::Handover(SimNode& target) {
  if (!target.never_master) target.state = SmState::kMaster;
}

void FabricWorld::StartOpenSm(SimNode& n, int priority) {
  n.running = true;
  n.hung = false;
  n.priority = priority;
  n.state = SmState::kDiscovering;
  n.exit_info.clear();
  starting_.push_back(&n);
}

// OpenSMs started in the same step: finding a MASTER they join as STANDBY,
// but a higher-ranked newcomer leaves both STANDBY (no master: docs/opensm-behaviour.md "Start-up
// races: dual master and no master"); finding none, each becomes MASTER (two at once: dual master).
void FabricWorld::Settle() {
  std::vector<SimNode*> masters;
  for (auto& o : nodes_)
    if (Answers(*o) && o->state == SmState::kMaster) masters.push_back(o.get());
  std::vector<SimNode*> joined;
  for (SimNode* n : starting_) {
    if (!Answers(*n)) continue;
    if (masters.empty()) { n->state = SmState::kMaster; continue; }
    n->state = SmState::kStandby;
    joined.push_back(n);
    for (SimNode* m : masters)
      if (OutRanks(n->priority, n->guid, m->priority, m->guid)) m->state = SmState::kStandby;
  }
  starting_.clear();
  for (SimNode* n : joined)
    if (n->state == SmState::kStandby) SweepOnTrap144(*n);
}

void FabricWorld::KillOpenSm(const std::string& name) {
  SimNode& n = node(name);
  n.running = false;
  n.state = SmState::kNotActive;
  n.exit_info = "signal 9";
}

void FabricWorld::NodeDown(const std::string& name) {
  SimNode& n = node(name);
  n.node_up = false;
  n.running = false;
  n.state = SmState::kNotActive;
  n.restart_in = -1;
}

void FabricWorld::NodeUp(const std::string& name) {
  SimNode& n = node(name);
  n.node_up = true;
  n.smsupd_up = true;
  n.watched.reset();
  n.misses = 0;
  n.policy = std::make_unique<FailoverPolicy>(n.config, now_);
}

void FabricWorld::RestartSmsupd(const std::string& name) {
  SimNode& n = node(name);
  n.policy = std::make_unique<FailoverPolicy>(n.config, now_);
}

void FabricWorld::Command(const std::string& name, OperatorCommand command) {
  node(name).pending_commands.push_back(command);
}

void FabricWorld::StartRacing(const std::string& a, const std::string& b) {
  for (const std::string& name : {a, b}) {
    SimNode& n = node(name);
    StartOpenSm(n, n.config.role == Role::kMaster ? n.config.master_priority
                                                  : n.config.standby_priority);
  }
  Settle();
}

void FabricWorld::StartRaw(const std::string& name, int priority) {
  StartOpenSm(node(name), priority);
  Settle();
}

std::vector<const SimNode*> FabricWorld::Masters() const {
  std::vector<const SimNode*> out;
  for (auto& n : nodes_)
    if (n->node_up && n->running && n->state == SmState::kMaster) out.push_back(n.get());
  return out;
}

std::string FabricWorld::MasterName() const {
  std::string name;
  for (const SimNode* m : Masters()) name += (name.empty() ? "" : "+") + m->name;
  return name;
}

std::string FabricWorld::ElectionWinnerName() const {
  std::vector<SmEntry> sms;
  for (auto& n : nodes_)
    if (n->node_up && n->running && n->state != SmState::kNotActive)
      sms.push_back(SmEntry{n->guid, n->lid, n->state, n->priority});
  auto winner = ElectionWinner(sms);
  if (!winner) return "";
  for (auto& n : nodes_)
    if (n->guid == winner->guid) return n->name;
  return "";
}

}  // namespace smsupd::policy::testing
