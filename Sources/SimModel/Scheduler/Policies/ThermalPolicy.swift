import SimKernel

/// Thermal policy: refuses the app's sync activities while the device's thermal pressure is above
/// the highest level allowed for their priority; lifts when it falls. CloudKit's activities are
/// utility priority, allowed up to level 20 (`moderate`). [RE] dasd `_DASThermalPolicy`: the
/// highest allowed level is 30 for user-initiated and 20 for utility activities. Off by default:
/// dasd scores thermal pressure rather than refusing outright, and no measurement says at which
/// score a sync activity waits.
public struct ThermalPolicy: SchedulerPolicy {
  public var name: String { Self.definition.name }
  public var inputs: PolicyInputs { [.levels] }
  /// The highest level allowed, a position in the thermal condition's levels (2 = moderate).
  public var highestAllowedLevel = 2.0
  /// The thermal condition's slot among the device's levels.
  let slot = ConditionTable.levelSlot(named: "thermal")

  public init() {}

  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    activity.levels[slot] > highestAllowedLevel ? .refuse(until: nil) : .proceed
  }

  public static let definition = PolicyDefinition(
    name: "thermal",
    summary: "refuses while the thermal level is above the highest allowed for utility work; lifts when it falls",
    source: "[RE] `_DASThermalPolicy`", isOnByDefault: false,
    options: [
      PolicyOption(
        key: "highestAllowedLevel", kind: .integer(min: 0, max: 5), defaultText: "2",
        source: "[RE] `_DASThermalPolicy`: 20 for utility activities",
        meaning: "the highest thermal level (0 nominal … 5 sleeping) at which activities run")
    ]
  ) { options in
    var policy = ThermalPolicy()
    if let level = options.integer("highestAllowedLevel") { policy.highestAllowedLevel = Double(level) }
    return policy
  }
}
