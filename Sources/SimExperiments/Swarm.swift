import SimKernel
import SimMetrics
import SimModel
import SimScenario

/// A fault swarm in the manner of deterministic-simulation testers (FoundationDB, TigerBeetle):
/// each run draws a small random world and a random schedule of faults, heals every fault, and
/// runs on; invariants are checked during the run and liveness after healing.
///
/// A world has 1–3 accounts with 1–3 devices each, private stores, and in half the worlds a zone
/// shared by account 0 with one or two others. People edit at random times before the heal.
/// Faults (at random times before the heal): offline spells, force-quits, Low Power Mode,
/// the container's throttle (retry-after 30 s), a full quota, and as parameters zoneBusy answers,
/// network failures, push drops and expiring change tokens; in a tenth of the worlds a device
/// re-creates its container (a removed store, or a second container: 134410, which disables it).
/// At the heal every device goes online, leaves Low Power Mode, launches and activates; the
/// throttle lifts and quotas are unlimited. A world whose accounts share nothing is also run in
/// parts (`WorldPartitioning`) and on one kernel: their metrics must agree.
public struct Swarm: Sendable {
  /// When faults end and every device is healed.
  public static let healAt = SimDuration.hours(2)
  /// How long after the heal every device must have converged: the rate limiter's 5-minute
  /// window, a back-off at its cap (network and zoneBusy: 5 min each; the attempts that double
  /// them are counted across kinds of error), a retry-after (30 s), and a token expiry's
  /// re-import, each possibly twice, with margin: one hour. A throttle storm before the heal
  /// (retries every 30 s for an hour or more) can fill the 1-hour and 4-hour windows, and the
  /// rate limit then lasts for hours, as documented (TN3163): such a world is excused, not failed
  /// (`rateLimitedPastBound`).
  public static let livenessBound = SimDuration.hours(1)
  /// When every app is brought to the foreground again after the heal (the liveness condition's
  /// trigger: with pushes dropped, nothing else imports into a foreground app).
  public static let reactivateAfter = SimDuration.minutes(30)

  /// One swarm run: its seed, the scenario it drew, and what failed (empty: it passed).
  public struct Run: Sendable {
    public var seed: UInt64
    public var scenario: String
    public var failures: [String]
    public var checks: Int
    /// Liveness is not asked of a world where a store was disabled on purpose (134410).
    public var livenessChecked: Bool
  }

  public let seed: UInt64

  public init(seed: UInt64) { self.seed = seed }

  /// The scenario of run `index`, as JSON text (what a failure prints to reproduce it).
  public func scenario(run index: Int) -> String {
    var random = RandomStream(seed: seed, name: "swarm", index: UInt64(index))
    return SwarmWorld.draw(&random, name: "swarm-\(seed)-\(index)").json
  }

  /// Runs 0..<count on `jobs` threads; results by run index (the same for any `jobs`).
  public func runAll(count: Int, jobs: Int) -> [Run] {
    let store = ResultStore<Run>(count: count)
    WorkerPool(jobs: max(1, jobs)).run(count: count) { index in store.set(index, self.run(index)) }
    return store.results()
  }

  /// Runs `index` and checks it.
  public func run(_ index: Int) -> Run {
    let text = scenario(run: index)
    let (failures, checks, liveness) = Self.check(text)
    return Run(seed: seed, scenario: text, failures: failures, checks: checks, livenessChecked: liveness)
  }

  /// Decodes and runs a scenario, checking invariants and (unless a store is disabled on
  /// purpose) liveness; returns the failures, how many checks ran, and whether liveness was asked.
  public static func check(_ text: String) -> (failures: [String], checks: Int, liveness: Bool) {
    let scenario: Scenario
    do {
      scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "swarm.json").0
    } catch {
      return (["the drawn scenario is invalid: " + error.problems.map(\.description).joined(separator: "; ")], 0, false)
    }
    var spec = scenario.spec
    spec.reportObjects = true
    let recorder = MetricsRecorder(
      policyNames: spec.scheduler.policies.map(\.name), reportedErrors: spec.reportedErrors,
      reportedCauses: spec.reportedCauses)
    recorder.initialAppStates = spec.devices.map(\.initialAppState)
    let checker = SwarmInvariants(forwardingTo: recorder)
    let outcome = WorldRunner.run(spec, sink: checker)
    var failures = checker.failures
    var checks = checker.checks
    // Conservation: every write made is in exactly one class of the accounting.
    let accounting = recorder.writeAccounting()
    checks += 1
    if accounting.total != checker.edits {
      failures.append("conservation: \(checker.edits) writes made, \(accounting.total) accounted for")
    }
    // Every row's identities, visible or stuck: stages, and each stage's causes, to the nanosecond.
    let audit = recorder.auditRows(limit: max(0, 20 - failures.count))
    checks += audit.checks
    failures += audit.failures.map { "causes: " + $0 }
    // Parts: a world of independent accounts gives, part by part, the metrics of one kernel.
    if WorldPartitioning(scenario.spec).count > 1 {
      checks += 1
      let parts = ScenarioRunner.run(scenario).summary
      let whole = ScenarioRunner.run(scenario, partitioned: false).summary
      let differing = zip(parts.catalog, zip(parts.values, whole.values)).filter { _, pair in
        switch pair {
        case (nil, nil): false
        case (let a?, let b?): abs(a - b) > 1e-9 * max(1, abs(b))
        default: true
        }
      }
      if let (info, (a, b)) = differing.first {
        failures.append(
          "parts: \(info.name) is \(a.map { "\($0)" } ?? "undefined") in parts, \(b.map { "\($0)" } ?? "undefined") on one kernel"
            + (differing.count > 1 ? " (and \(differing.count - 1) more metrics)" : ""))
      }
    }
    var liveness = !text.contains("\"removeStoreFirst\": false")
    if liveness && !outcome.converged && (rateLimitedPastBound(recorder) || stalledAtTheEnd(recorder)) {
      liveness = false
    } else if liveness {
      checks += 1
      if !outcome.converged {
        failures.append(
          "liveness: not converged \(DurationText.format(livenessBound)) after every fault was healed "
            + "(\(accounting.pending) writes pending)")
      }
    }
    return (failures, checks, liveness)
  }

  /// Whether an activity was still refused by the rate limiter when the person opened every app
  /// for the last time (`reactivateAfter` past the heal): its windows filled before the heal,
  /// which the model's sources say lasts for hours, and after that last opening only a push
  /// imports, which may be dropped (seed 1234, run 17783: an export held until 1 s after it, its
  /// push to one device lost).
  static func rateLimitedPastBound(_ recorder: MetricsRecorder) -> Bool {
    guard let policy = recorder.policyNames.firstIndex(of: "rateLimit") else { return false }
    let deadline = SimTime(healAt + reactivateAfter)
    return recorder.activities.indices.contains { index in
      recorder.blocked(of: index).contains { $0.policy == Int32(policy) && $0.to >= deadline && $0.from < deadline }
    }
  }

  /// Whether an activity was still stalled at the run's end by an account that is temporarily
  /// unavailable: a drawn key (`cloud.accountUnavailableProbability`) stays after the heal, and
  /// each answer of it stalls the store `cloud.accountUnavailableFor` (10 min), so three in the
  /// last half hour leave a store behind by chance, not by a fault of the model (seed 20261201,
  /// run 7838: its import after the last opening met it three times in four requests). Only a
  /// store that kept asking and was refused at the end is excused; one that stopped asking fails.
  static func stalledAtTheEnd(_ recorder: MetricsRecorder) -> Bool {
    guard let policy = recorder.policyNames.firstIndex(of: "accountUnavailable") else { return false }
    let end = recorder.endTime
    return recorder.activities.indices.contains { index in
      recorder.blocked(of: index).contains { $0.policy == Int32(policy) && $0.to >= end }
    }
  }

  /// The smallest scenario that still fails as `text` fails: timeline entries before the heal
  /// are dropped one at a time while the same kind of failure remains (at most `budget` tries);
  /// the heal is kept, so liveness is still asked of a healed world.
  public static func shrink(_ text: String, budget: Int = 80) -> String {
    guard var document = try? JSONParser.parse(Array(text.utf8)),
      let first = check(text).failures.first
    else { return text }
    let kind = first.prefix { $0 != ":" }
    var tries = 0
    var index = 0
    while tries < budget {
      guard case .object(let members) = document.value,
        let position = members.firstIndex(where: { $0.key == "timeline" }),
        case .array(var entries) = members[position].value.value, index < entries.count
      else { break }
      let text = entries[index].serialized()
      if text.contains("\"at\": \"\(Int(healAt.seconds))s\"")
        || text.contains("\"at\": \"\(Int((healAt + reactivateAfter).seconds))s\"")
      {
        index += 1
        continue
      }
      entries.remove(at: index)
      var smaller = members
      smaller[position].value = JSONNode(value: .array(entries), line: 0, column: 0)
      let candidate = JSONNode(value: .object(smaller), line: 0, column: 0)
      tries += 1
      let failures = check(candidate.serialized()).failures
      if failures.contains(where: { $0.hasPrefix(kind) }) {
        document = candidate
      } else {
        index += 1
      }
    }
    return document.serialized() + "\n"
  }
}

/// Checks invariants as the observations come, and passes each on to the recorder.
final class SwarmInvariants: ObservationSink {
  let recorder: MetricsRecorder
  var failures: [String] = []
  var checks = 0
  var edits = 0
  var storeZone: [ZoneID] = []
  var storeDisabled: [Bool] = []
  var activityStore: [StoreID] = []
  var activityKind: [ActivityKind] = []
  var committed = Set<Int32>()  // lookup only

  init(forwardingTo recorder: MetricsRecorder) { self.recorder = recorder }

  func fail(_ message: String) { if failures.count < 20 { failures.append(message) } }

  func observe(_ observation: Observation) {
    switch observation {
    case .storeCreated(_, _, let zone, _):
      storeZone.append(zone)
      storeDisabled.append(false)
    case .edited: edits += 1
    case .setupFailed(let store, _, _): storeDisabled[store.index] = true
    case .activityRequested(let activity, let kind, let store, _, _):
      while activityStore.count <= activity.index {
        activityStore.append(.none)
        activityKind.append(.setup)
      }
      activityStore[activity.index] = store
      activityKind[activity.index] = kind
    case .activityStarted(let activity, let at):
      // No export from a disabled store.
      checks += 1
      let store = activityStore[activity.index]
      if activityKind[activity.index] == .export, store.exists, storeDisabled[store.index] {
        fail("an export started at \(at.seconds) s from store \(store), which was disabled (134410)")
      }
    case .imported(let store, _, _, let records, let at):
      // A store with no access to a zone (a shared store of an account outside the share)
      // never receives a record.
      checks += 1
      if !storeZone[store.index].exists && records > 0 {
        fail("store \(store), with no access to any zone, imported \(records) records at \(at.seconds) s")
      }
    case .committed(let write, _, _, _):
      checks += 1
      if !committed.insert(write.raw).inserted { fail("write \(write) committed twice") }
    case .objectState(let store, _, _, let held, _, _, _):
      // At the end, a store holds only records of the zone it has access to.
      checks += 1
      if held && !storeZone[store.index].exists { fail("store \(store) holds a record of a zone it has no access to") }
    default: break
    }
    recorder.observe(observation)
  }
}
