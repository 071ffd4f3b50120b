import SimModel

/// The declared keys a decoder, schema and swarm work from: `standard` is SyncSim's own
/// (`ParameterTable`); a test or a researcher's build may add keys without touching the readers.
public struct ParameterSet: Sendable {
  public var world: [ParameterDefinition<WorldSpec>]
  public var worldGroups: [ParameterGroup]
  public var device: [ParameterDefinition<DeviceSpec>]
  public var deviceGroups: [ParameterGroup]

  public init(
    world: [ParameterDefinition<WorldSpec>], worldGroups: [ParameterGroup], device: [ParameterDefinition<DeviceSpec>],
    deviceGroups: [ParameterGroup]
  ) {
    (self.world, self.worldGroups, self.device, self.deviceGroups) = (world, worldGroups, device, deviceGroups)
  }

  /// SyncSim's own keys.
  public static let standard = ParameterSet(
    world: ParameterTable.world, worldGroups: ParameterTable.worldGroups, device: ParameterTable.device,
    deviceGroups: ParameterTable.deviceGroups)

  /// Every key of a device: those read by hand and those declared.
  var deviceKeys: [String] {
    ScenarioBuilder.handKeys + ParameterTable.children(of: "", table: device, groups: deviceGroups).map(\.key)
  }
}
