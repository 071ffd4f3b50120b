import SimKernel
import SimMetrics
import SimModel
import Testing

/// Tests of spec §5 whose expectations are derived by hand from the rules, not by running the code.
@Suite struct SchedulerTests {
  /// A foreground pair with deterministic latencies, so hand-derived times are exact.
  static func quietPair(hours: Int64 = 1) -> WorldSpec {
    var spec = TestWorlds.privatePair(hours: hours)
    spec.scheduler.decisionLatency = .constant(0.3)
    spec.server.requestLatency = .constant(0.2)
    spec.push.fanoutLatency = .constant(1)
    // The container's first-launch setup would shift every hand-derived time by its length;
    // its own tests are in BackgroundExecutionTests.
    spec.server.setupTime = .zero
    return spec
  }

  static func nudges(every seconds: Int64, from start: Int64 = 10, until: SimDuration) -> TimelineAction {
    TimelineAction(at: .seconds(start), devices: [0], action: .nudge(every: .seconds(seconds), until: until))
  }

  func policyIndex(_ spec: WorldSpec, _ name: String) -> Int {
    spec.scheduler.policies.firstIndex { $0.name == name }!
  }

  /// Every refusal by the policy at `position`, as [from, to] in nanoseconds, in activity order.
  func refusals(_ recorder: MetricsRecorder, by position: Int) -> [[Int64]] {
    recorder.loggedActivities.flatMap(\.blocked).filter { $0.policy == Int32(position) }
      .map { [$0.from.nanoseconds, $0.to.nanoseconds] }
  }

  @Test func sixtyFirstActivityInAMinuteWaitsUntilTheOldestLeavesTheWindow() {
    var spec = Self.quietPair()
    spec.scheduler.policies = [ActivityRateLimitPolicy(windows: [RateLimitWindow(maxRuns: 60, windowSeconds: 60)])]
    spec.timeline = [
      TimelineAction(at: .seconds(1), devices: [0], action: .nudge(every: .milliseconds(500), until: .seconds(90)))
    ]
    let (recorder, _) = TestWorlds.run(spec)
    let mine = recorder.loggedActivities.filter { $0.store == StoreID(0) }
    let approvals = mine.compactMap(\.approvedAt).sorted()
    // Device 0's runs: the launch import at r0 = 0.3 s, then one per nudge, r_j = 0.8 + 0.5·j s
    // (each import ends before the next nudge). The 61st run, j = 60, is decided at 30.8 s and
    // finds r0 … r59 in (−29.2, 30.8]: 60 runs, so it waits until r0 + 60 s = 60.3 s.
    #expect(approvals[0] == SimTime(.milliseconds(300)))
    #expect(approvals[59] == SimTime(.milliseconds(30_300)))
    let blocks = mine.flatMap(\.blocked)
    #expect(blocks.first?.from == SimTime(.milliseconds(30_800)))
    #expect(blocks.first?.to == SimTime(.milliseconds(60_300)))
    #expect(approvals[60] == SimTime(.milliseconds(60_300)))
    // And in general: no 60 s window ever holds more than 60 runs, and every refusal ends
    // exactly when the run 60 places earlier leaves the window.
    for (index, approval) in approvals.enumerated() where index >= 60 {
      #expect(approval - approvals[index - 60] >= .seconds(60), "run \(index) at \(approval)")
    }
    for block in blocks {
      let released = approvals.firstIndex(of: block.to)!
      #expect(block.to == approvals[released - 60] + .seconds(60))
    }
  }

  @Test func aNudgeEveryTenSecondsTripsTheFourHourWindowForHours() {
    var spec = Self.quietPair(hours: 6)
    spec.timeline = [Self.nudges(every: 10, until: .hours(6))]
    let (recorder, _) = TestWorlds.run(spec)
    let rate = policyIndex(spec, "rateLimit")
    let blocks = recorder.loggedActivities.flatMap(\.blocked).filter { $0.policy == Int32(rate) }
    // Run k (k ≥ 1) is approved at 10(k−1) + 0.3 s: 6 per minute, 30 per 5 minutes and exactly
    // 360 per hour never fill those windows (run k is outside the hour window of run k + 360).
    // Run 481 at 4800.3 s finds 480 runs in the 4-hour window: it waits until run 1 + 4 h =
    // 14,400.3 s, a wait of 9,600 s; later nudges coalesce into it.
    let first = try! #require(blocks.first)
    #expect(first.from == SimTime(.milliseconds(4_800_300)))
    #expect(first.to == SimTime(.milliseconds(14_400_300)))
    #expect(blocks.map { $0.to - $0.from }.max() == .seconds(9_600))
  }

  @Test func aNudgeEveryFiveMinutesNeverWaits() {
    var spec = TestWorlds.privatePair(hours: 24)
    spec.timeline = [Self.nudges(every: 300, until: .hours(24))]
    let (recorder, _) = TestWorlds.run(spec)
    #expect(recorder.loggedActivities.count >= 288)
    #expect(recorder.counters.blockedTotal[policyIndex(spec, "rateLimit")] == .zero)
  }

  @Test func bulkInsertInManySavesStallsExportForHoursAndOneSaveDoesNot() {
    func exportBlocked(oneSave: Bool, over: SimDuration, coalescing: Bool, count: Int = 2000) -> SimDuration {
      var spec = TestWorlds.privatePair(hours: 12)
      spec.exportRequestCoalescing = coalescing
      spec.timeline = [
        TimelineAction(
          at: .seconds(10), devices: [0], action: .bulkInsert(count: count, entity: 0, oneSave: oneSave, over: over))
      ]
      let (recorder, _) = TestWorlds.run(spec)
      let rate = Int32(policyIndex(spec, "rateLimit"))
      return recorder.loggedActivities.filter { $0.kind == .export }.flatMap(\.blocked)
        .filter { $0.policy == rate }.map { $0.to - $0.from }.max() ?? .zero
    }
    // One save: a handful of export runs, never rate limited.
    #expect(exportBlocked(oneSave: true, over: .zero, coalescing: true) == .zero)
    // Each save its own dasd activity (the UNCONFIRMED reading of TN3163): 600 activities in a
    // minute exceed 360 per hour and 480 per 4 h, so some wait hours. (600, not 2,000: every
    // waiting activity is decided again on each signal, quadratic in a debug build's time.)
    #expect(exportBlocked(oneSave: false, over: .minutes(1), coalescing: false, count: 600) > .hours(1))
    // With Core Data's coalescing (134417, the default) the runs are paced by export time
    // (≈1.5 s each): a 40-minute burst fills 120 per 5 min, then 360 per hour, and the export
    // waits for the oldest run of the hour to leave it: tens of minutes, not hours.
    let paced = exportBlocked(oneSave: false, over: .minutes(40), coalescing: true)
    #expect(paced > .minutes(30))
    #expect(paced < .hours(1))
  }

  @Test func lowPowerModeUnpluggedHoldsSyncUntilPluggedIn() {
    var spec = Self.quietPair(hours: 2)
    spec.devices[0].conditions.lowPowerMode = true
    spec.timeline = [
      TimelineAction(at: .seconds(60), devices: [0], action: .edit(.insert, entity: 0, key: nil)),
      TimelineAction(at: .seconds(3600), devices: [0], action: .plug),
    ]
    let (recorder, _) = TestWorlds.run(spec)
    let lpm = Int32(policyIndex(spec, "lowPowerMode"))
    let group = Int32(policyIndex(spec, "activityGroup"))
    let export = try! #require(recorder.loggedActivities.first { $0.kind == .export && $0.trigger == .save })
    let launchImport = try! #require(recorder.loggedActivities.first { $0.store == StoreID(0) && $0.kind == .import })
    // Device 0's launch import (decided 0.3 s) and the export (requested 60 s, decided 60.3 s)
    // both wait on Low Power Mode until the plug-in signal at 3600 s + 0.089 s re-evaluation.
    // The import was submitted first, so it takes the group; the export follows when it ends.
    #expect(launchImport.blocked.map(\.policy) == [lpm])
    #expect(launchImport.approvedAt == SimTime(.milliseconds(3_600_089)))
    #expect(export.blocked.map(\.policy) == [lpm, group])
    #expect(export.blocked[0].from == SimTime(.milliseconds(60_300)))
    #expect(export.blocked[0].to == SimTime(.milliseconds(3_600_089)))
    #expect(export.approvedAt == launchImport.finishedAt! + .milliseconds(89))
    #expect(export.startedAt == export.approvedAt! + .seconds(1))
    let row = try! #require(recorder.latencyRows().first)
    #expect(recorder.exportSplit(row)?.blocked[Int(lpm)] == .milliseconds(3_600_089 - 60_300))
  }

  @Test func lowPowerModePluggedInWithEnoughBatteryDoesNotWait() {
    var spec = Self.quietPair()
    spec.devices[0].conditions.lowPowerMode = true
    spec.devices[0].conditions.pluggedIn = true
    spec.devices[0].conditions.batteryPercent = 30
    spec.timeline = [TimelineAction(at: .seconds(60), devices: [0], action: .edit(.insert, entity: 0, key: nil))]
    let (recorder, _) = TestWorlds.run(spec)
    #expect(recorder.loggedActivities.allSatisfy { $0.blocked.isEmpty })
    // Below 30 % the policy is enforced even while plugged in.
    spec.devices[0].conditions.batteryPercent = 29
    let (low, _) = TestWorlds.run(spec)
    #expect(low.loggedActivities.contains { !$0.blocked.isEmpty })
  }

  @Test func anImportRequestedDuringAnExportWaitsUntilTheExportEnds() {
    var spec = Self.quietPair()
    spec.scheduler.reevaluationLatency = .zero
    spec.entities = [EntityDescription(name: "Blob", attributeBytes: [500_000])]
    spec.timeline = [
      TimelineAction(
        at: .seconds(60), devices: [0], action: .bulkInsert(count: 20, entity: 0, oneSave: true, over: .zero)),
      TimelineAction(at: .seconds(62), devices: [0], action: .nudge(every: nil, until: nil)),
    ]
    let (recorder, _) = TestWorlds.run(spec)
    let group = Int32(policyIndex(spec, "activityGroup"))
    let export = try! #require(recorder.loggedActivities.first { $0.kind == .export && $0.trigger == .save })
    let nudged = try! #require(recorder.loggedActivities.first { $0.trigger == .nudge })
    // The export (approved 60.3 s, started 61.3 s) uploads 20 × 0.5 MB in several requests;
    // the nudge's import, decided at 62.3 s, is refused by the group until the export finishes.
    #expect(nudged.blocked.count == 1)
    #expect(nudged.blocked[0].policy == group)
    #expect(nudged.blocked[0].from == SimTime(.milliseconds(62_300)))
    #expect(nudged.blocked[0].to == export.finishedAt)
    #expect(nudged.approvedAt == export.finishedAt)
  }

  @Test func networkOffDefersAndNetworkOnReleases() {
    var spec = Self.quietPair()
    spec.timeline = [
      TimelineAction(at: .seconds(30), devices: [0], action: .goOffline),
      TimelineAction(at: .seconds(60), devices: [0], action: .edit(.insert, entity: 0, key: nil)),
      TimelineAction(at: .seconds(600), devices: [0], action: .goOnline),
    ]
    let (recorder, _) = TestWorlds.run(spec)
    let network = Int32(policyIndex(spec, "network"))
    let export = try! #require(recorder.loggedActivities.first { $0.kind == .export })
    #expect(export.blocked.map(\.policy) == [network])
    #expect(export.approvedAt == SimTime(.milliseconds(600_089)))
    #expect(recorder.latencyRows().allSatisfy { $0.outcome == .visible })
  }

  /// A researcher's policy, added without touching the others: no sync in the first hour.
  struct QuietFirstHourPolicy: SchedulerPolicy {
    var name: String { "quietFirstHour" }
    func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
      let hour = SimTime(.hours(1))
      return activity.now < hour ? .refuse(until: hour) : .proceed
    }
  }

  @Test func aCustomPolicyPlugsIn() {
    var spec = Self.quietPair(hours: 2)
    spec.scheduler.policies.append(QuietFirstHourPolicy())
    spec.timeline = [TimelineAction(at: .seconds(60), devices: [0], action: .edit(.insert, entity: 0, key: nil))]
    let (recorder, _) = TestWorlds.run(spec)
    let custom = Int32(spec.scheduler.policies.count - 1)
    let export = try! #require(recorder.loggedActivities.first { $0.kind == .export })
    // Refused from its decision at 60.3 s until the policy's own "until", 1 h (re-checked every
    // 900 s on the way); then the launch import, released at the same instant, holds the group.
    #expect(export.blocked.first?.policy == custom)
    #expect(export.blocked.first?.from == SimTime(.milliseconds(60_300)))
    #expect(export.blocked.first?.to == SimTime(.hours(1)))
    #expect(export.approvedAt! < SimTime(.hours(1)) + .seconds(2))
    #expect(recorder.counters.blockedCount[Int(custom)] >= 2)
  }

  /// Policies keep their order whatever their kind: a researcher's policy put second is
  /// evaluated second and is named by its position, between two built-in ones.
  @Test func aCustomPolicyKeepsItsPlaceInTheOrder() {
    var spec = Self.quietPair(hours: 2)
    spec.scheduler.policies.insert(QuietFirstHourPolicy(), at: 1)
    spec.timeline = [TimelineAction(at: .seconds(60), devices: [0], action: .edit(.insert, entity: 0, key: nil))]
    let (recorder, _) = TestWorlds.run(spec)
    let export = try! #require(recorder.loggedActivities.first { $0.kind == .export })
    #expect(export.blocked.first?.policy == 1)
    #expect(export.blocked.first?.to == SimTime(.hours(1)))
    #expect(recorder.counters.blockedCount[1] >= 2)
    #expect(recorder.counters.blockedCount[spec.scheduler.policies.count - 1] == 0)
  }

  /// A policy that never refuses: appended, it makes the world hand every policy the run history
  /// (the rate limiters' shortcut is off while a researcher's policy might read it).
  struct AlwaysProceedPolicy: SchedulerPolicy {
    var name: String { "alwaysProceed" }
    func evaluate(_ activity: PolicyContext) -> PolicyVerdict { .proceed }
  }

  /// Skipping the rate limiters while the run headroom shows no window can be full, and holding
  /// runs in the device's state until the history is read, change no decision: a busy pair with
  /// tight windows and Low Power Mode spells runs the same with the shortcut and without it. The
  /// wider windows leave room for more runs than a device holds, so held runs also move to the
  /// history because the buffer is full.
  @Test(arguments: [
    [RateLimitWindow(maxRuns: 4, windowSeconds: 120), RateLimitWindow(maxRuns: 9, windowSeconds: 900)],
    [RateLimitWindow(maxRuns: 14, windowSeconds: 600), RateLimitWindow(maxRuns: 40, windowSeconds: 3600)],
  ])
  func rateLimitShortcutChangesNoDecision(windows: [RateLimitWindow]) {
    var spec = Self.quietPair(hours: 3)
    spec.scheduler.policies[policyIndex(spec, "rateLimit")] = ActivityRateLimitPolicy(windows: windows)
    for index in spec.devices.indices { spec.devices[index].workload = Workload(editsPerHour: 90) }
    spec.timeline = [
      TimelineAction(at: .minutes(50), devices: [1], action: .lowPower(true)),
      TimelineAction(at: .minutes(55), devices: [1], action: .unplug),
      TimelineAction(at: .minutes(100), devices: [1], action: .plug),
    ]
    let rate = policyIndex(spec, "rateLimit")
    let (fast, fastOutcome) = TestWorlds.run(spec)
    spec.scheduler.policies.append(AlwaysProceedPolicy())
    let (full, fullOutcome) = TestWorlds.run(spec)
    #expect(refusals(fast, by: rate).count > 20)
    #expect(refusals(fast, by: rate) == refusals(full, by: rate))
    #expect(fastOutcome.fingerprint == fullOutcome.fingerprint)
    #expect(fastOutcome.processedEvents == fullOutcome.processedEvents)
  }

  /// A researcher's policy sees the run history in `PolicyContext.recentRuns` (a copy of the rows
  /// the built-in limiter reads in place): the built-in limiter wrapped as a researcher's policy
  /// refuses exactly when and until the built-in one does.
  struct WrappedRateLimit: SchedulerPolicy {
    var inner: ActivityRateLimitPolicy
    var name: String { "wrappedRateLimit" }
    func evaluate(_ activity: PolicyContext) -> PolicyVerdict { inner.evaluate(activity) }
  }

  @Test func aResearchersPolicyReadsTheSameRunHistory() {
    var spec = Self.quietPair(hours: 2)
    let limiter = ActivityRateLimitPolicy(windows: [RateLimitWindow(maxRuns: 3, windowSeconds: 600)])
    let rate = policyIndex(spec, "rateLimit")
    spec.scheduler.policies[rate] = limiter
    spec.timeline = [Self.nudges(every: 60, until: .minutes(90))]
    let (builtIn, _) = TestWorlds.run(spec)
    spec.scheduler.policies[rate] = WrappedRateLimit(inner: limiter)
    let (wrapped, _) = TestWorlds.run(spec)
    // Runs at 0.3 s (the launch import), 10.3 s and 70.3 s fill the window; the nudge at 130 s
    // waits from 130.3 s until the first run leaves it, at 600.3 s.
    #expect(refusals(builtIn, by: rate).first == [130_300_000_000, 600_300_000_000])
    #expect(refusals(builtIn, by: rate).count > 5)
    #expect(refusals(wrapped, by: rate) == refusals(builtIn, by: rate))
  }

  /// The headroom is a sound bound: whenever it is at least 1, the rate limiter proceeds, in or
  /// out of Low Power Mode, and adding that many runs minus one keeps it so.
  @Test func rateLimitHeadroomNeverHidesAFullWindow() {
    let policy = ActivityRateLimitPolicy(windows: [
      RateLimitWindow(maxRuns: 3, windowSeconds: 60), RateLimitWindow(maxRuns: 6, windowSeconds: 600),
    ])
    var stream = RandomStream(seed: 7)
    var checked = 0
    var refused = 0
    for _ in 0..<3_000 {
      var time = Int64(0)
      var runs: [SimTime] = []
      for _ in 0..<Int(stream.nextInt(below: 12)) {
        time += Int64(stream.nextInt(below: 400_000_000_000))
        runs.append(SimTime(nanoseconds: time))
      }
      let now = SimTime(nanoseconds: time + Int64(stream.nextInt(below: 900_000_000_000)))
      let headroom = policy.headroom(after: runs[...], at: now)
      for lowPower in [false, true] {
        let context = PolicyContext(
          now: now, kind: .export, requestedAt: now, launchedForPush: false, runningInGroup: 0,
          recentRuns: runs[...], batteryPercent: 50, pluggedIn: false, lowPowerMode: lowPower, online: true,
          devicesInAccount: 2)
        let verdict = policy.evaluate(context)
        if verdict != .proceed { refused += 1 }
        if headroom >= 1 {
          checked += 1
          #expect(verdict == .proceed, "headroom \(headroom) but refused at \(now) after \(runs)")
        }
      }
    }
    // Both sides of the bound occur: it is not vacuous.
    #expect(checked > 1_000)
    #expect(refused > 100)
  }

  @Test func singleDeviceAccountPolicyDelaysFourHoursWhenOn() {
    var spec = Self.quietPair(hours: 6)
    spec.devices = [spec.devices[0]]
    spec.scheduler.policies.append(SingleDeviceAccountPolicy())
    spec.timeline = [TimelineAction(at: .seconds(60), devices: [0], action: .edit(.insert, entity: 0, key: nil))]
    let (recorder, _) = TestWorlds.run(spec)
    let export = try! #require(recorder.loggedActivities.first { $0.kind == .export })
    #expect(export.approvedAt == SimTime(.seconds(60 + 4 * 3600)))
  }

  @Test func rateLimitPolicyComputesNextEligibleFromTheFullestWindow() {
    let policy = ActivityRateLimitPolicy()
    let runs = (0..<120).map { SimTime(.seconds(Int64($0) * 2)) }  // 120 runs in 4 minutes
    let context = PolicyContext(
      now: SimTime(.seconds(240)), kind: .import, requestedAt: SimTime(.seconds(240)), launchedForPush: false,
      runningInGroup: 0, recentRuns: runs[...], batteryPercent: 100, pluggedIn: true, lowPowerMode: false,
      online: true, devicesInAccount: 2)
    // 120 runs in (−60, 240]: the 5-minute window is full; oldest at 0 s ⇒ eligible at 300 s.
    #expect(policy.evaluate(context) == .refuse(until: SimTime(.seconds(300))))
    var pushLaunch = context
    pushLaunch.launchedForPush = true
    #expect(policy.evaluate(pushLaunch) == .proceed)
    // In Low Power Mode unplugged the 60 s window is stretched to an hour: 60 runs in the last
    // hour fill it; the 60th-newest run (at 120 s) + 3600 s = 3720 s.
    var lowPower = context
    lowPower.lowPowerMode = true
    lowPower.pluggedIn = false
    #expect(policy.evaluate(lowPower) == .refuse(until: SimTime(.seconds(3720))))
    // With no extension (`lowPowerWindow` 0), Low Power Mode changes nothing: the 5-minute window
    // decides, as when plugged in.
    var unextended = policy
    unextended.lowPowerWindowSeconds = 0
    #expect(unextended.evaluate(lowPower) == .refuse(until: SimTime(.seconds(300))))
  }

  /// With the default policies, Low Power Mode while unplugged refuses anyway, so stretching the
  /// rate-limit windows moves part of the wait from one policy to the other (the rate limit comes
  /// first in the order) and leaves its end where it was.
  @Test(arguments: [3600.0, 0.0])
  func theLowPowerWindowExtensionMovesAWaitBetweenPoliciesNotItsEnd(lowPowerWindowSeconds: Double) {
    var spec = Self.quietPair(hours: 3)
    spec.devices[0].conditions.lowPowerMode = true
    spec.devices[0].conditions.pluggedIn = true
    var rateLimit = ActivityRateLimitPolicy()
    rateLimit.lowPowerWindowSeconds = lowPowerWindowSeconds
    spec.scheduler.policies[policyIndex(spec, "rateLimit")] = rateLimit
    spec.timeline = [
      Self.nudges(every: 30, until: .seconds(3590)),
      TimelineAction(at: .seconds(3600), devices: [0], action: .unplug),
      TimelineAction(at: .seconds(3700), devices: [0], action: .edit(.insert, entity: 0, key: nil)),
      TimelineAction(at: .seconds(7200), devices: [0], action: .plug),
    ]
    let (recorder, _) = TestWorlds.run(spec)
    let lpm = Int32(policyIndex(spec, "lowPowerMode"))
    let rate = Int32(policyIndex(spec, "rateLimit"))
    let export = try! #require(recorder.loggedActivities.first { $0.kind == .export && $0.trigger == .save })
    // Runs: the launch import at 0.3 s and the nudges' imports at 10 + 30(k − 1) + 0.3 s,
    // k = 1…120. The export is decided at 3700.3 s. Stretched to an hour, the 60-run window holds
    // 116 runs; its 60th-newest, run k = 61 at 1810.3 s, leaves it at 5410.3 s, and from then
    // Low Power Mode refuses until the plug-in.
    let end = try! #require(export.blocked.first { $0.policy == lpm }?.to)
    #expect(end > SimTime(.seconds(7200)) && end < SimTime(.seconds(7201)))
    if lowPowerWindowSeconds > 0 {
      #expect(export.blocked.map(\.policy).prefix(2) == [rate, lpm])
      #expect(export.blocked[0].from == SimTime(.milliseconds(3_700_300)))
      #expect(export.blocked[0].to == SimTime(.milliseconds(5_410_300)))
      #expect(export.blocked[1].from == SimTime(.milliseconds(5_410_300)))
    } else {
      #expect(export.blocked.map(\.policy).prefix(1) == [lpm])
      #expect(export.blocked[0].from == SimTime(.milliseconds(3_700_300)))
    }
  }

  /// The limiter skips reading a window's run when a window of fewer runs already shows it is not
  /// full; the verdicts must equal checking every window, whatever the windows' order.
  @Test func rateLimitPolicyAgreesWithCheckingEveryWindow() {
    var rng = RandomStream(seed: 41)
    var disagreements = 0
    var refusals = 0
    for trial in 0..<3_000 {
      var policy = ActivityRateLimitPolicy()
      if trial % 3 == 1 { policy.windows.reverse() }
      if trial % 3 == 2 {
        policy.windows = [
          RateLimitWindow(maxRuns: 5, windowSeconds: 600), RateLimitWindow(maxRuns: 3, windowSeconds: 30),
          RateLimitWindow(maxRuns: 8, windowSeconds: 20),
        ]
      }
      var time = 0.0
      let gapSeconds = [0.5, 5, 60, 600][Int(rng.nextInt(below: 4))]
      let runs = (0..<Int(rng.nextInt(below: 400))).map { _ in
        time += rng.exponential(mean: gapSeconds)
        return SimTime(.seconds(Int64(time)))
      }
      let now = SimTime(.seconds(Int64(time) + Int64(rng.nextInt(below: 120))))
      let context = PolicyContext(
        now: now, kind: .export, requestedAt: now, launchedForPush: false, runningInGroup: 0,
        recentRuns: runs[...], batteryPercent: 50, pluggedIn: trial % 2 == 0, lowPowerMode: trial % 4 < 2,
        online: true, devicesInAccount: 2)
      // The reference: every window whose count allows it, read and compared.
      var eligible = now
      for window in policy.windows where runs.count >= window.maxRuns {
        let extend = context.lowPowerMode && !context.pluggedIn
        let length = SimDuration(
          seconds: extend ? max(window.windowSeconds, policy.lowPowerWindowSeconds) : window.windowSeconds)
        let blocking = runs[runs.count - window.maxRuns]
        if blocking > now.advanced(by: SimDuration(nanoseconds: -length.nanoseconds)) {
          eligible = max(eligible, blocking.advanced(by: length))
        }
      }
      let expected: PolicyVerdict = eligible > now ? .refuse(until: eligible) : .proceed
      if policy.evaluate(context) != expected { disagreements += 1 }
      if expected != .proceed { refusals += 1 }
    }
    #expect(disagreements == 0)
    // The trials reach both verdicts often.
    #expect(refusals > 300 && refusals < 2_700)
  }
}

@Suite struct BatteryTests {
  @Test func aDrainingBatteryTurnsOnLowPowerModeAndChargingReleasesSync() {
    var spec = SchedulerTests.quietPair(hours: 6)
    spec.devices[0].conditions.batteryPercent = 30
    spec.devices[0].conditions.drainPercentPerHour = 12  // 1 % every 5 minutes
    spec.devices[0].conditions.chargePercentPerHour = 60
    spec.devices[0].conditions.autoLowPowerBelowPercent = 20
    spec.timeline = [
      TimelineAction(at: .hours(2), devices: [0], action: .edit(.insert, entity: 0, key: nil)),
      TimelineAction(at: .hours(4), devices: [0], action: .plug),
    ]
    let (log, recorder, _) = runLogged(spec)
    // 30 % − 1 % per 5 min: below 20 % after 55 min (19 %), when Low Power Mode turns on.
    let lowPowerOn = log.observations.first {
      if case .conditions(DeviceID(0), _, _, true, _, _) = $0 { return true }
      return false
    }
    if case .conditions(_, let battery, _, _, _, let time) = lowPowerOn {
      #expect(time == SimTime(.minutes(55)))
      #expect(abs(battery - 19) < 1e-9)
    } else {
      Issue.record("Low Power Mode never turned on")
    }
    // The battery is empty from 2.5 h. Plugged in at 4 h it charges 5 % per 5-minute tick
    // (the plug, scheduled first, precedes the 4 h tick): 30 % at 4 h 25 m. Until then Low Power
    // Mode is still enforced ([RE] LPM on and (unplugged or battery < 30 %)), so the edit made
    // at 2 h is seen 2 h 25 m later, plus seconds.
    let row = try! #require(recorder.latencyRows().first)
    #expect(row.latency! > .minutes(145))
    #expect(row.latency! < .minutes(145) + .seconds(10))
  }
}
