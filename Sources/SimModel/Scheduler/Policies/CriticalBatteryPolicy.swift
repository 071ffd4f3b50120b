import SimKernel

/// Critically low battery: below `thresholdPercent`, only essential background work runs, in
/// Low Power Mode or not, so the sync activities of an app in the background wait until the
/// battery is above it again or the person brings the app to the front. [W] WWDC20 10063
/// "Background execution demystified": below 20 % battery, background work is limited to what is
/// essential.
public struct CriticalBatteryPolicy: SchedulerPolicy {
  public var name: String { Self.definition.name }
  public var inputs: PolicyInputs { [.conditions, .appState] }
  public var thresholdPercent = 20.0

  public init() {}

  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    activity.batteryPercent < thresholdPercent && !activity.appInForeground ? .refuse(until: nil) : .proceed
  }

  public static let definition = PolicyDefinition(
    name: "criticalBattery",
    summary: "refuses an app's background sync below the battery threshold, plugged in or not; lifts above it "
      + "or when the app comes to the front",
    source: "[W] WWDC20 10063", isOnByDefault: true,
    options: [
      PolicyOption(
        key: "threshold", kind: .number(min: 0, max: 100), defaultText: "20", source: "[W] WWDC20 10063: 20 %",
        meaning: "battery percent below which only essential background work runs")
    ]
  ) { options in
    var policy = CriticalBatteryPolicy()
    if let threshold = options.number("threshold") { policy.thresholdPercent = threshold }
    return policy
  }
}
