// `smsupd --twin-probe --port-guid G --out FILE [--net DIR]`: the twin's
// reader, a mode of the smsupd binary (not a daemon; exits when done).
// Opens the umad port G (on the twin it runs under the umad2sim preload,
// attached to the twin's copy of this node), walks the subnet, reads every
// end port's P_Key table and every switch's forwarding table with the
// daemon's own MAD code (daemon/fabric) and writes them as JSON to FILE
// (fabric_state.h). With --net it also writes the walk for the simulator
// into DIR: `net`, `guid2lid` and `sim.json` (twin_topology.h).
// Reads only: no MAD it sends is a Set.
// Exit 0 written, 1 failed (the reason on stderr), 2 usage.
#pragma once

namespace smsupd::twin {

int RunTwinProbe(int argc, char** argv);

}  // namespace smsupd::twin
