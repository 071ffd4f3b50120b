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
    case other(Int)
  }

  private(set) var order: [Slot] = []
  private var activityGroups: [ActivityGroupPolicy] = []
  private var rateLimits: [ActivityRateLimitPolicy] = []
  private var lowPowerModes: [LowPowerModePolicy] = []
  private var networks: [NetworkPolicy] = []
  private var others: [any SchedulerPolicy] = []

  /// Whether only the rate limiters read the run history (no researcher's policy might).
  var onlyRateLimitsReadRuns: Bool { others.isEmpty }

  init(_ policies: [any SchedulerPolicy]) {
    for policy in policies {
      switch policy {
      case let policy as ActivityGroupPolicy: order.append(.activityGroup(Self.add(policy, to: &activityGroups)))
      case let policy as ActivityRateLimitPolicy: order.append(.rateLimit(Self.add(policy, to: &rateLimits)))
      case let policy as LowPowerModePolicy: order.append(.lowPowerMode(Self.add(policy, to: &lowPowerModes)))
      case let policy as NetworkPolicy: order.append(.network(Self.add(policy, to: &networks)))
      default: order.append(.other(Self.add(policy, to: &others)))
      }
    }
  }

  /// Appends `policy` to `list` and returns where it is.
  private static func add<Policy>(_ policy: Policy, to list: inout [Policy]) -> Int {
    list.append(policy)
    return list.count - 1
  }

  /// The rate limiters' longest window in effect, in seconds (0 without a rate limiter): runs
  /// older than this can be forgotten.
  var runHorizonSeconds: Double { rateLimits.map(\.horizonSeconds).max() ?? 0 }

  /// The first policy, in order, that refuses `activity`: its position and its "until" time.
  ///
  /// With `rateLimitsCannotRefuse` (no window can be full: see `runHeadroom`), the rate limiters
  /// are not asked, and the context's run history need not be filled in.
  @inline(__always)
  func firstRefusal(
    _ activity: PolicyContext, rateLimitsCannotRefuse: Bool = false
  ) -> (policy: Int32, until: SimTime?)? {
    for position in order.indices {
      if case .refuse(let until) = verdict(order[position], activity, rateLimitsCannotRefuse) {
        return (Int32(position), until)
      }
    }
    return nil
  }

  /// How many more runs it takes at least before any rate limiter's window could be full.
  func runHeadroom(after runs: ArraySlice<SimTime>, at now: SimTime) -> Int {
    var least = Int.max
    for policy in rateLimits { least = min(least, policy.headroom(after: runs, at: now)) }
    return least
  }

  @inline(__always)
  private func verdict(_ slot: Slot, _ activity: PolicyContext, _ rateLimitsCannotRefuse: Bool) -> PolicyVerdict {
    switch slot {
    case .activityGroup(let index): return activityGroups[index].evaluate(activity)
    case .rateLimit(let index): return rateLimitsCannotRefuse ? .proceed : rateLimits[index].evaluate(activity)
    case .lowPowerMode(let index): return lowPowerModes[index].evaluate(activity)
    case .network(let index): return networks[index].evaluate(activity)
    case .other(let index): return others[index].evaluate(activity)
    }
  }
}
