import SimKernel

/// Critically low battery: below `thresholdPercent`, only essential background work runs, in
/// Low Power Mode or not, so the sync activities of an app in the background wait until the
/// battery is above it again or the person brings the app to the front. [W] WWDC20 10063
/// "Background execution demystified": below 20 % battery, background work is limited to what is
/// essential.
///
/// With `byPriority`, the threshold depends on the activity's priority instead, as decompiled
/// dasd of iOS 26.1 has it [RE] `_DASBatteryLevelPolicy`: utility work is refused at 9 % and
/// below, maintenance work at 19 % and below. The two sources disagree at 10–19 %, where a
/// sync activity (utility) waits by WWDC20's words and runs by the decompiled rule. The default
/// is WWDC20's: it is Apple's own statement, and which of dasd's configurations applies to Core
/// Data's activities is inferred, not shown (docs/specification.md §3.4).
public struct CriticalBatteryPolicy: SchedulerPolicy {
  public var name: String { Self.definition.name }
  public var inputs: PolicyInputs { byPriority ? [.conditions, .appState, .client] : [.conditions, .appState] }
  public var thresholdPercent = 20.0
  /// Thresholds by priority, in place of `thresholdPercent`.
  public var byPriority = false
  public var utilityThresholdPercent = 10.0
  public var maintenanceThresholdPercent = 20.0

  public init() {}

  public var batteryThresholds: [Double] {
    byPriority ? [utilityThresholdPercent, maintenanceThresholdPercent] : [thresholdPercent]
  }

  /// The battery level below which the activity's background work is refused.
  public func threshold(_ activity: PolicyContext) -> Double {
    guard byPriority else { return thresholdPercent }
    switch activity.client.activityPriority {
    case .utility: return utilityThresholdPercent
    case .maintenance: return maintenanceThresholdPercent
    }
  }

  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    activity.batteryPercent < threshold(activity) && !activity.appInForeground ? .refuse(until: nil) : .proceed
  }

  public static let definition = PolicyDefinition(
    name: "criticalBattery",
    summary: "refuses an app's background sync below the battery threshold, plugged in or not; lifts above it "
      + "or when the app comes to the front",
    source: "[W] WWDC20 10063; [RE] iOS 26.1 _DASBatteryLevelPolicy (byPriority)", isOnByDefault: true,
    options: [
      PolicyOption(
        key: "threshold", kind: .number(min: 0, max: 100), defaultText: "20", source: "[W] WWDC20 10063: 20 %",
        meaning: "battery percent below which only essential background work runs"),
      PolicyOption(
        key: "byPriority", kind: .bool, defaultText: "false", source: "[RE] iOS 26.1 _DASBatteryLevelPolicy",
        meaning: "thresholds by the activity's priority (utilityThreshold, maintenanceThreshold) instead of threshold; "
          + "sync activities are utility"),
      PolicyOption(
        key: "utilityThreshold", kind: .number(min: 0, max: 100), defaultText: "10",
        source: "[RE] _DASBatteryLevelPolicy: refused at 9 % and below",
        meaning: "with byPriority: battery percent below which utility work is refused"),
      PolicyOption(
        key: "maintenanceThreshold", kind: .number(min: 0, max: 100), defaultText: "20",
        source: "[RE] _DASBatteryLevelPolicy: refused at 19 % and below",
        meaning: "with byPriority: battery percent below which maintenance work is refused"),
    ]
  ) { options in
    var policy = CriticalBatteryPolicy()
    if let threshold = options.number("threshold") { policy.thresholdPercent = threshold }
    if let byPriority = options.bool("byPriority") { policy.byPriority = byPriority }
    if let threshold = options.number("utilityThreshold") { policy.utilityThresholdPercent = threshold }
    if let threshold = options.number("maintenanceThreshold") { policy.maintenanceThresholdPercent = threshold }
    return policy
  }
}
