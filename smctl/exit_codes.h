// smctl's exit codes: ONE table for every command (docs/smctl.md "Exit
// codes" and smctl(8) say the same). A script tells the cases apart the same
// way whatever the command:
//
//   code  meaning                                              error.code (--json)
//   0     done; valid; written; no change                     -
//   1     failed or refused: the daemon said no or the         the daemon's result name
//         operation failed (verification failed, busy,         ("error", "busy", ...),
//         permission denied, files not written)                "permission-denied", "write-failed"
//   2     usage: unknown command or option, bad value          "usage"
//   3     daemon unreachable: no socket, nothing listening,    "unreachable"
//         no answer in time, connection lost
//   4     the config is invalid: nothing applied / written     "invalid", "too-large"
//         (`why`: a name smctl's daemon does not know)         "unknown-name"
//   5     `plan --exit-code` only: refused or daemon error     (as 1)
//         (1 means "changes" there, as in `git diff`)
//   6     a FILE smctl or the daemon reads cannot be read      "unreadable"
//   7     reload: the twin gate refused the config (the twin   "twin-refused"
//         disagreed with the plan or could not run): nothing
//         was applied
//
// `why` answers "no" with 1 and `cabling` reports differences with 1 (not
// an error: ok is true, as `plan --exit-code` reporting changes).
// 0-3 were smctl's codes from the start and keep their meaning; 4 is the
// code `plan` always gave an invalid file; 5 is plan's refusal with
// --exit-code. `smsupd --check` keeps its own 0 valid / 1 invalid /
// 2 unreadable (smsupd(8)).
#pragma once

namespace smsupd::smctl {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;       // the operation failed or was refused
inline constexpr int kExitUsage = 2;        // bad command line
inline constexpr int kExitUnreachable = 3;  // no daemon: socket missing, refused, no answer
inline constexpr int kExitInvalid = 4;      // the config is invalid; nothing applied or written
inline constexpr int kExitUnknownName = 4;  // why: a name nobody knows (the closest are suggested)
inline constexpr int kExitPlanRefused = 5;  // plan --exit-code: refused or daemon error
inline constexpr int kExitUnreadable = 6;   // a file that must be read cannot be
inline constexpr int kExitTwinRefused = 7;  // reload: the twin gate refused it; nothing changed
// cabling: the links differ from the declared cabling.
inline constexpr int kExitDifferences = 1;
// plan --exit-code: something would change.
inline constexpr int kExitPlanChanges = 1;

}  // namespace smsupd::smctl
