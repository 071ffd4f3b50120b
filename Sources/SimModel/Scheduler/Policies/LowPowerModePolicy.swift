import SimKernel

/// Low Power Mode policy: refuses while Low Power Mode is on and (unplugged or battery below the
/// threshold); lifts when that ends. [A] TN3163 + [RE] iOS 18.2 `_DASLowPowerModePolicy` (30 %).
///
/// With `utilityWindow`, utility work escapes once 90 % of its window has passed: decompiled dasd
/// of iOS 26.1 lets work of utility priority or above run under Low Power Mode when the elapsed
/// fraction of its `[startAfter, startBefore]` window is at least 0.9 [RE]
/// `_DASLowPowerModePolicy`. The window counts from the activity's submission. No source gives
/// the window of Core Data's or CKSyncEngine's activities, so the rule is off by default (0).
public struct LowPowerModePolicy: SchedulerPolicy {
  public var batteryThresholdPercent = 30.0
  /// The activity's window from its submission; zero leaves the escape out.
  public var utilityWindow = SimDuration.zero
  /// The elapsed share of the window after which utility work escapes.
  public static let escapeFraction = 0.9
  public var name: String { Self.definition.name }
  public var inputs: PolicyInputs { utilityWindow > .zero ? [.conditions, .client] : [.conditions] }
  public var leavesOutDocumentedRule: Bool { utilityWindow == .zero }
  public var batteryThresholds: [Double] { [batteryThresholdPercent] }
  public init() {}

  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    let enforced =
      activity.lowPowerMode
      && (!activity.pluggedIn || activity.batteryPercent < batteryThresholdPercent)
    guard enforced else { return .proceed }
    guard utilityWindow > .zero, activity.client.activityPriority == .utility else { return .refuse(until: nil) }
    let escape = activity.requestedAt + SimDuration(seconds: utilityWindow.seconds * Self.escapeFraction)
    return activity.now >= escape ? .proceed : .refuse(until: escape)
  }

  public static let definition = PolicyDefinition(
    name: "lowPowerMode",
    summary: "refuses while Low Power Mode is on and the device is unplugged or below the threshold",
    source: "[A] TN3163 + [RE]", isOnByDefault: true,
    options: [
      PolicyOption(
        key: "batteryThreshold", kind: .number(min: 0, max: 100), defaultText: "30",
        source: "[RE] `_DASLowPowerModePolicy` 30 %", meaning: "percent below which plugged-in devices are refused too"),
      PolicyOption(
        key: "utilityWindow", kind: .duration(positive: false, maxSeconds: 30 * 86_400), defaultText: "0",
        source: "[RE] iOS 26.1 `_DASLowPowerModePolicy`: utility work runs after 90 % of its window",
        meaning: "an activity's window from its submission: utility work (sync activities) escapes Low Power Mode "
          + "after 90 % of it; 0 leaves the rule out"),
    ],
    omittedRule:
      "dasd's rule that lets utility-priority activities through after 90 % of their window [RE] is off unless "
      + "lowPowerMode's utilityWindow is set, so a real device may have run some of them sooner "
      + "(docs/model-choices.md)"
  ) { options in
    var policy = LowPowerModePolicy()
    if let threshold = options.number("batteryThreshold") { policy.batteryThresholdPercent = threshold }
    if let window = options.seconds("utilityWindow") { policy.utilityWindow = SimDuration(seconds: window) }
    return policy
  }
}
