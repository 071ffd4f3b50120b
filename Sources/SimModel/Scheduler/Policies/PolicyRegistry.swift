/// The scheduler policies a scenario can name, in spec §5's evaluation order.
///
/// A new policy is one file (the policy and its `definition`) and one line here. A researcher's
/// policy defined outside SyncSim is added with `adding(_:)` and the registry handed to the
/// scenario decoder.
public struct PolicyRegistry: Sendable {
  /// Every known policy, in the order the scheduler evaluates them.
  public private(set) var definitions: [PolicyDefinition]

  public init(_ definitions: [PolicyDefinition]) {
    self.definitions = definitions
  }

  /// SyncSim's own policies.
  public static let standard = PolicyRegistry([
    ActivityGroupPolicy.definition,
    ActivityRateLimitPolicy.definition,
    LowPowerModePolicy.definition,
    NetworkPolicy.definition,
    CriticalBatteryPolicy.definition,
    SingleDeviceAccountPolicy.definition,
    ThermalPolicy.definition,
    SyncEngineBackgroundPolicy.definition,
  ])

  /// The registry with `definition` evaluated after the others.
  /// - Precondition: no policy of that name is registered.
  public func adding(_ definition: PolicyDefinition) -> PolicyRegistry {
    precondition(self.definition(named: definition.name) == nil, "policy \(definition.name) is registered twice")
    return PolicyRegistry(definitions + [definition])
  }

  /// The names, in evaluation order.
  public var names: [String] { definitions.map(\.name) }

  public func definition(named name: String) -> PolicyDefinition? { definitions.first { $0.name == name } }

  /// The set a scenario gets when it names no policy: every policy that is on by default.
  public var defaultPolicies: [any SchedulerPolicy] {
    definitions.filter(\.isOnByDefault).map { $0.makeDefault() }
  }
}
