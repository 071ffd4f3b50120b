import SimKernel

/// Single-device account policy: an account with one known device waits `delaySeconds` after
/// submission. [RE] CKScheduler priority 0: 4 h delay, 24 h grace; unconfirmed for Core Data, so
/// not in the default set.
public struct SingleDeviceAccountPolicy: SchedulerPolicy {
  public var delaySeconds = 14_400.0
  public var name: String { Self.definition.name }
  public var inputs: PolicyInputs { [.account] }
  public init() {}

  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    guard activity.devicesInAccount == 1 else { return .proceed }
    let eligible = activity.requestedAt.advanced(by: SimDuration(seconds: delaySeconds))
    return eligible > activity.now ? .refuse(until: eligible) : .proceed
  }

  public static let definition = PolicyDefinition(
    name: "singleDeviceAccount",
    summary: "an account with one device waits `delay` after submission (unconfirmed for Core Data: off)",
    source: "[RE] CKScheduler", isOnByDefault: false,
    options: [
      PolicyOption(
        key: "delay", kind: .duration(positive: false, maxSeconds: 3650 * 86_400), defaultText: "4h",
        source: "[RE] CKScheduler priority 0: 4 h", meaning: "wait after submission")
    ]
  ) { options in
    var policy = SingleDeviceAccountPolicy()
    if let delay = options.seconds("delay") { policy.delaySeconds = delay }
    return policy
  }
}
