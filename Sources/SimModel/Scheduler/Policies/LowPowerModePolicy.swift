import SimKernel

/// Low Power Mode policy: refuses while Low Power Mode is on and (unplugged or battery below the
/// threshold); lifts when that ends. [A] TN3163 + [RE] iOS 18.2 `_DASLowPowerModePolicy` (30 %).
public struct LowPowerModePolicy: SchedulerPolicy {
  public var batteryThresholdPercent = 30.0
  public var name: String { Self.definition.name }
  public var inputs: PolicyInputs { [.conditions] }
  public init() {}

  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    let enforced =
      activity.lowPowerMode
      && (!activity.pluggedIn || activity.batteryPercent < batteryThresholdPercent)
    return enforced ? .refuse(until: nil) : .proceed
  }

  public static let definition = PolicyDefinition(
    name: "lowPowerMode",
    summary: "refuses while Low Power Mode is on and the device is unplugged or below the threshold",
    source: "[A] TN3163 + [RE]", isOnByDefault: true,
    options: [
      PolicyOption(
        key: "batteryThreshold", kind: .number(min: 0, max: 100), defaultText: "30",
        source: "[RE] `_DASLowPowerModePolicy` 30 %", meaning: "percent below which plugged-in devices are refused too")
    ],
    omittedRule:
      "dasd's rule that lets utility-priority activities through after 90 % of their window [RE] is not modelled, "
      + "so a real device may have run some of them sooner (docs/model-choices.md)"
  ) { options in
    var policy = LowPowerModePolicy()
    if let threshold = options.number("batteryThreshold") { policy.batteryThresholdPercent = threshold }
    return policy
  }
}
