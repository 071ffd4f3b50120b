import SimKernel

/// The scheduler's policies in their order, each kept as its concrete type.
///
/// A decision calls every policy. Through `any SchedulerPolicy` each call copied the existential,
/// retaining and releasing what the policy holds (the rate limiter's windows): about 2.5 % of the
/// fleet bench's instructions. The built-in policies live here in arrays of their own types and
/// are called directly; a researcher's own policy still goes through the protocol.
struct PolicySet {
  /// Which array holds a policy, and where.
  enum Slot: BitwiseCopyable {
    case activityGroup(Int)
    case rateLimit(Int)
    case lowPowerMode(Int)
    case network(Int)
    case criticalBattery(Int)
    case other(Int)
  }

  private(set) var order: [Slot] = []
  private var activityGroups: [ActivityGroupPolicy] = []
  private var rateLimits: [ActivityRateLimitPolicy] = []
  private var lowPowerModes: [LowPowerModePolicy] = []
  private var networks: [NetworkPolicy] = []
  private var criticalBatteries: [CriticalBatteryPolicy] = []
  private var others: [any SchedulerPolicy] = []

  /// What the policies of the set read, together (`SchedulerPolicy.inputs`): the context is
  /// filled in only for these.
  private(set) var reads: PolicyInputs = []

  /// Whether only the rate limiters read the run history (no researcher's policy declares it):
  /// fixed at init, read on every decision.
  private(set) var onlyRateLimitsReadRuns = true

  /// The battery levels at which a policy of the set can change its verdict (each policy's
  /// `batteryThresholds`), in order, each once: fixed at init, read on every battery tick.
  private(set) var batteryThresholds: [Double] = []

  init(_ policies: [any SchedulerPolicy]) {
    for policy in policies {
      reads.formUnion(policy.inputs)
      for level in policy.batteryThresholds where !batteryThresholds.contains(level) { batteryThresholds.append(level) }
      switch policy {
      case let policy as ActivityGroupPolicy: order.append(.activityGroup(Self.add(policy, to: &activityGroups)))
      case let policy as ActivityRateLimitPolicy: order.append(.rateLimit(Self.add(policy, to: &rateLimits)))
      case let policy as LowPowerModePolicy: order.append(.lowPowerMode(Self.add(policy, to: &lowPowerModes)))
      case let policy as NetworkPolicy: order.append(.network(Self.add(policy, to: &networks)))
      case let policy as CriticalBatteryPolicy:
        order.append(.criticalBattery(Self.add(policy, to: &criticalBatteries)))
      default:
        order.append(.other(Self.add(policy, to: &others)))
        if policy.inputs.contains(.runHistory) { onlyRateLimitsReadRuns = false }
      }
    }
  }

  /// Appends `policy` to `list` and returns where it is.
  private static func add<Policy>(_ policy: Policy, to list: inout [Policy]) -> Int {
    list.append(policy)
    return list.count - 1
  }

  /// How long runs are remembered, in seconds: the rate limiters' longest window in effect, and at
  /// least a day when a researcher's policy might read them; 0 when no policy reads them.
  var runHorizonSeconds: Double {
    let limiters = rateLimits.map(\.horizonSeconds).max() ?? 0
    return onlyRateLimitsReadRuns ? limiters : max(limiters, Self.researchHorizonSeconds)
  }

  /// What a researcher's policy sees of the run history at least: dasd's longest CloudKit window.
  /// [RE] 1080 runs / 24 h.
  static var researchHorizonSeconds: Double { 86_400 }

  /// The first policy, in order, that refuses `activity`: its position and its "until" time.
  ///
  /// The rate limiters read `runs`; a researcher's policy reads the context's `recentRuns`, which
  /// need be filled in only when there is one (`onlyRateLimitsReadRuns` is false). With
  /// `rateLimitsCannotRefuse` (no window can be full: see `runHeadroom`), the rate limiters are not
  /// asked, and `runs` may be empty.
  @inline(__always)
  func firstRefusal(
    _ activity: PolicyContext, runs: RecentRuns, rateLimitsCannotRefuse: Bool = false
  ) -> (policy: Int32, until: SimTime?)? {
    for position in order.indices {
      if case .refuse(let until) = verdict(order[position], activity, runs, rateLimitsCannotRefuse) {
        return (Int32(position), until)
      }
    }
    return nil
  }

  /// How many more runs it takes at least before any rate limiter's window could be full.
  func runHeadroom(after runs: RecentRuns, at now: SimTime) -> Int {
    var least = Int.max
    for policy in rateLimits { least = min(least, policy.headroom(after: runs, at: now)) }
    return least
  }

  @inline(__always)
  private func verdict(
    _ slot: Slot, _ activity: PolicyContext, _ runs: RecentRuns, _ rateLimitsCannotRefuse: Bool
  ) -> PolicyVerdict {
    switch slot {
    case .activityGroup(let index): return activityGroups[index].evaluate(activity)
    case .rateLimit(let index):
      return rateLimitsCannotRefuse ? .proceed : rateLimits[index].evaluate(activity, runs: runs)
    case .lowPowerMode(let index): return lowPowerModes[index].evaluate(activity)
    case .network(let index): return networks[index].evaluate(activity)
    case .criticalBattery(let index): return criticalBatteries[index].evaluate(activity)
    case .other(let index): return others[index].evaluate(activity)
    }
  }
}
