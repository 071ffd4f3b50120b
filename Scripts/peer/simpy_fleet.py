#!/usr/bin/env python3
"""Peer model in SimPy of a private-database fleet, for side-by-side speed (and rough latency) comparison.

Each account has D devices, always foreground/online/plugged. Each device edits at Poisson rate
(edits/hour); every edit is saved at once and asks for an export (one pending at most: coalescing).
Activities (export, import) on a device share one activity-group slot (capacity 1) and start after a
decision latency. Export uploads everything saved so far (one request: RTT). Server commit -> push to
every other device of the account (latency) -> import request (coalesced) -> fetch (RTT) + apply.
Latency of a write at an observer = time its import applies - edit time.

usage: simpy_fleet.py ACCOUNTS DEVICES_PER_ACCOUNT EDITS_PER_HOUR HOURS [SEED] [LATENCY_FILE]
(copied from ../shared/research/simpy_fleet.py; LATENCY_FILE, added here, gets one latency per line)
prints: wall seconds, device-days simulated per wall second, writes, deliveries, mean and p95 latency.
"""
import random, sys, time, simpy

DECISION = 0.38     # s, TN3163 example
EXPORT_START = 1.0  # s after approval, TN3163 example
RTT_MEDIAN = 0.15   # s
PUSH_MEDIAN = 1.0   # s
APPLY = 0.0035      # s per record

def lognormal(rng, median, sigma=0.5):
    import math
    return median * math.exp(rng.gauss(0, sigma))

class Device:
    def __init__(self, env, rng, account, idx, stats):
        self.env, self.rng, self.account, self.idx, self.stats = env, rng, account, idx, stats
        self.slot = simpy.Resource(env, capacity=1)
        self.unexported = []        # (write_id, edit_time)
        self.export_pending = False
        self.import_pending = False
        self.token = 0

    def edit_loop(self, rate_per_s):
        while True:
            yield self.env.timeout(self.rng.expovariate(rate_per_s))
            wid = self.stats['next_id']; self.stats['next_id'] += 1
            self.unexported.append((wid, self.env.now))
            self.stats['writes'] += 1
            if not self.export_pending:
                self.export_pending = True
                self.env.process(self.export())

    def export(self):
        yield self.env.timeout(DECISION)
        with self.slot.request() as req:
            yield req
            self.export_pending = False
            yield self.env.timeout(EXPORT_START)
            batch, self.unexported = self.unexported, []
            if batch:
                yield self.env.timeout(lognormal(self.rng, RTT_MEDIAN))
                self.account.commit(self, batch)

    def push(self):
        if not self.import_pending:
            self.import_pending = True
            self.env.process(self.do_import())

    def do_import(self):
        yield self.env.timeout(DECISION)
        with self.slot.request() as req:
            yield req
            self.import_pending = False
            yield self.env.timeout(lognormal(self.rng, RTT_MEDIAN))
            changes = self.account.log[self.token:]
            self.token = len(self.account.log)
            yield self.env.timeout(APPLY * len(changes))
            for (wid, t_edit, origin) in changes:
                if origin is not self:
                    self.stats['lat'].append(self.env.now - t_edit)

class Account:
    def __init__(self, env, rng, n, stats):
        self.env, self.rng = env, rng
        self.log = []
        self.devices = [Device(env, rng, self, i, stats) for i in range(n)]
    def commit(self, origin, batch):
        for wid, t in batch:
            self.log.append((wid, t, origin))
        for d in self.devices:
            if d is not origin:
                self.env.process(self.deliver(d))
    def deliver(self, d):
        yield self.env.timeout(lognormal(self.rng, PUSH_MEDIAN))
        d.push()

def main():
    a, dpa, eph, hours = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    rng = random.Random(seed)
    env = simpy.Environment()
    stats = {'next_id': 0, 'writes': 0, 'lat': []}
    accounts = [Account(env, rng, dpa, stats) for _ in range(a)]
    for acc in accounts:
        for d in acc.devices:
            env.process(d.edit_loop(eph / 3600.0))
    t0 = time.perf_counter()
    env.run(until=hours * 3600)
    wall = time.perf_counter() - t0
    lat = sorted(stats['lat'])
    p95 = lat[int(0.95 * (len(lat) - 1))] if lat else float('nan')
    mean = sum(lat) / len(lat) if lat else float('nan')
    dev_days = a * dpa * hours / 24
    print(f"wall_s={wall:.3f} device_days_per_s={dev_days / wall:.1f} writes={stats['writes']} "
          f"deliveries={len(lat)} mean_latency_s={mean:.3f} p95_latency_s={p95:.3f}")
    if len(sys.argv) > 6:
        with open(sys.argv[6], "w") as out:
            out.write("\n".join(f"{x:.9f}" for x in lat) + "\n")

if __name__ == '__main__':
    main()
