// Tails OpenSM's log file and reports the lines the daemon acts on: the end
// of a heavy sweep ("SUBNET UP"), a partitions.conf that OpenSM refused, an
// SM_Key mismatch with another SM (split brain), SM state changes.
//
// What OpenSM 3.3.23 writes (libopensm/osm_log.c, osm_state_mgr.c,
// osm_prtn.c, osm_prtn_config.c, osm_sminfo_rcv.c), one record per line:
//   "Dec 02 21:12:36 836120 [A8CE26C0] 0x02 -> SUBNET UP"
//   <month day time usecs [thread] verbosity -> message>
// - "SUBNET UP" ends EVERY completed heavy sweep (the first one and each one
//   a SIGHUP forces), at INFO level (0x02). Measured on ibsim: one line per
//   SIGHUP. A sweep that ended with errors logs "Errors during
//   initialization" instead.
// - OpenSM flushes its log only after ERROR (0x01) and SYS (0x80) lines
//   unless force_log_flush is TRUE: with the default, "SUBNET UP" sits in
//   OpenSM's stdio buffer until some later error line (measured: four
//   SIGHUPs, no line reached the file). With force_log_flush TRUE in
//   opensm.conf (runtime-changeable: a SIGHUP applies it) each line arrives
//   at once. INFO must also be in log_flags (the default 0x03 has it).
//   Callers must not depend on seeing "SUBNET UP": wait for it with a
//   deadline and then look at the fabric anyway.
// - A broken partitions.conf logs, at ERROR level, one
//   "parse_part_conf: PARSE ERROR: line N: ..." (or partition_add_port /
//   mgroup_create ...) line, then "osm_prtn_make_partitions: Partition
//   configuration in error; retrying with default config", both BEFORE the
//   same sweep's "SUBNET UP". A missing file is logged only at VERBOSE
//   level: watch the fabric (the verifier's default_fallback) for that.
// - "ERR 2F18: Got SM (...) with sm_key 0x... that doesn't match our local
//   sm_key. Ignoring SMInfo": the other SM is ignored (both may be master).
// - "Entering MASTER state" / "Entering STANDBY state" (SYS level).
// - "INITIATING HEAVY SWEEP" is only a VERBOSE message box: kHeavySweepRequested
//   is seen only when log_flags include VERBOSE (0x04).
//
// Rotation and truncation (the shipped logrotate file renames the log and
// sends SIGUSR1, on which OpenSM fcloses the old file and opens the path
// again: libopensm/osm_log.c osm_log_reopen_file; docs/systemd.md "Log
// rotation"):
// - When the path names a new inode, the old file stays open and is read
//   for as long as the new one is empty: OpenSM keeps writing the renamed
//   file until it reopens (logrotate's `create` makes the new file before
//   the signal is sent, and with no signal at all OpenSM never leaves the
//   old file). Once the new file holds a byte, OpenSM has closed the old
//   one (its fclose flushed the last lines first), so the old file is read
//   to its end and only then the new one, from its beginning: no line is
//   lost and the order is kept. A partial last line of the old file is
//   dropped (OpenSM writes whole lines).
// - A file that shrank, or whose first bytes changed (copytruncate followed
//   by more writes than were read before the next poll), is read again from
//   its start. Lines OpenSM writes between logrotate's copy and its
//   truncation are lost to the copy, not to the watcher: the shipped file
//   does not use copytruncate.
// The watcher starts at the file's current end; a file created after Start
// is read from its beginning.
//
// Runs on the io_context thread; polls every `interval` (no inotify: the
// same code works on every file system and the cost is one fstat per poll).
// Bounded: one poll reads at most kMaxReadPerPoll, a backlog over
// kMaxBacklog is skipped (OPENSM_LOG_SKIPPED), a line over kMaxLineBytes is
// dropped.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace smsupd {

struct OpenSmLogEvent {
  enum class Kind {
    kSubnetUp,
    kPartitionConfigError,
    kSmKeyMismatch,
    kEnteringMaster,
    kEnteringStandby,
    kHeavySweepRequested,
    kError,  // any other ERROR-level (0x01) line
  } kind;
  std::string line;  // printable (common/printable_text.h), at most kMaxLineBytes
  std::chrono::steady_clock::time_point seen_at;
};

// "subnet-up", "partition-config-error", ... (for logs and events).
const char* OpenSmLogEventKindName(OpenSmLogEvent::Kind kind);

// The kind of one log line, or nullopt for a line nobody acts on. Pure.
std::optional<OpenSmLogEvent::Kind> ClassifyOpenSmLogLine(std::string_view line);

class OpenSmLogWatcher {
 public:
  OpenSmLogWatcher(boost::asio::io_context& io, std::string path, std::chrono::milliseconds interval,
                   std::function<void(const OpenSmLogEvent&)> on_event);
  ~OpenSmLogWatcher();
  OpenSmLogWatcher(const OpenSmLogWatcher&) = delete;
  OpenSmLogWatcher& operator=(const OpenSmLogWatcher&) = delete;

  // Starts at the current end of the file (or at 0 once it appears).
  void Start();
  // No on_event after Stop returns. Idempotent.
  void Stop();
  // Reads what is new now (also done every interval). For tests and for a
  // caller that wants the newest lines before deciding.
  void PollNow();

  static constexpr off_t kMaxReadPerPoll = 1 << 20;
  static constexpr off_t kMaxBacklog = 16 << 20;
  static constexpr std::size_t kMaxLineBytes = 64 << 10;
  // Bytes of the file's start remembered to see a copytruncate that the
  // size alone does not show (OpenSM's record header is 35 bytes).
  static constexpr std::size_t kHeadBytes = 128;

  std::uint64_t subnet_up_count() const { return subnet_up_count_; }
  // Bytes of an unfinished line held in memory (at most kMaxLineBytes).
  std::size_t buffered_bytes() const { return partial_.size(); }
  // Rotations followed (a new file read after the old one was finished).
  std::uint64_t rotations() const { return rotations_; }
  // The path names a new file that is still empty; the old one is read.
  bool following_rotated_file() const { return rotated_pending_; }
  const std::string& path() const { return path_; }

 private:
  void Arm();
  bool OpenCurrent(bool from_end);
  void CloseFile();
  // True when the file was rotated and the new one may be read now.
  bool SwitchToNewFile();
  void DetectTruncation();
  void RememberHead();
  // Reads until the end or the poll's budget; true at the end of the file.
  bool ReadAvailable();
  void Consume(std::string_view bytes);
  void Deliver(std::string_view line);

  boost::asio::io_context& io_;
  std::string path_;
  std::chrono::milliseconds interval_;
  std::function<void(const OpenSmLogEvent&)> on_event_;
  boost::asio::steady_timer timer_;
  int fd_ = -1;
  dev_t device_ = 0;
  ino_t inode_ = 0;
  off_t offset_ = 0;
  std::string partial_;      // bytes after the last newline
  std::string head_;         // the file's first bytes (at most kHeadBytes)
  bool rotated_pending_ = false;
  std::uint64_t rotations_ = 0;
  bool discarding_ = false;  // inside an over-long (or skipped) line
  std::uint64_t subnet_up_count_ = 0;
  bool running_ = false;
};

}  // namespace smsupd
