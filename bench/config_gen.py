#!/usr/bin/env python3
"""Writes a large smsupd.yaml for bench/config_bench.sh.

HOSTS hosts with 2 ports each, GROUPS groups of hosts (plus a few groups of
groups), PARTITIONS partitions whose members mix groups, hosts and GUIDs.
Deterministic: the same arguments give the same file.
"""
import argparse
import random


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", type=int, default=10000)
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--groups", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    out = ["version: 1", "sm:", "  port_guid: 0x0002c90300000002", "  role: master",
           "  opensm:", "    options:", "      routing_engine: ftree", "hosts:"]
    for i in range(args.hosts):
        base = 0x0002c90300000000 + 2 * i
        out.append(f"  node{i:05d}: [0x{base + 2:016x}, 0x{base + 3:016x}]")
    out.append("groups:")
    per_group = max(1, args.hosts // args.groups)
    for g in range(args.groups):
        members = [f"node{h:05d}" for h in range(g * per_group, min(args.hosts, (g + 1) * per_group))]
        out.append(f"  rack{g:03d}: [{', '.join(members)}]")
    for g in range(0, args.groups, 10):
        racks = ", ".join(f"rack{r:03d}" for r in range(g, min(args.groups, g + 10)))
        out.append(f"  row{g // 10:02d}: [{racks}]")
    out.append("partitions:")
    out += ["  - name: Default", "    pkey: 0x7fff", "    ipoib: true", "    members:",
            "      - { ports: ALL, membership: limited }",
            "      - { ports: SELF, membership: full }"]
    for p in range(1, args.partitions + 1):
        out += [f"  - name: tenant{p:04d}", f"    pkey: 0x{p:04x}", "    ipoib: true",
                "    mtu: 4096", "    rate: 200", "    members:"]
        out.append(f"      - {{ group: rack{rng.randrange(args.groups):03d} }}")
        if p % 10 == 0:
            out.append(f"      - {{ group: row{rng.randrange(args.groups // 10):02d}, membership: limited }}")
        for host in rng.sample(range(args.hosts), 5):
            out.append(f"      - {{ host: node{host:05d}, membership: full }}")
        out.append(f"      - {{ guid: 0x{0x0002c90300000002 + rng.randrange(2 * args.hosts):016x}, membership: limited }}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
