import SimModel

/// The declared keys a decoder, schema and swarm work from: `standard` is SyncSim's own
/// (`ParameterTable`); a test or a researcher's build may add keys without touching the readers.
public struct ParameterSet: Sendable {
  // A change to any table makes the set another than `standard` (a test's additions).
  public var world: [ParameterDefinition<WorldSpec>] { didSet { isStandard = false } }
  public var worldGroups: [ParameterGroup] { didSet { isStandard = false } }
  public var device: [ParameterDefinition<DeviceSpec>] { didSet { isStandard = false } }
  public var deviceGroups: [ParameterGroup] { didSet { isStandard = false } }
  /// Whether this is `standard`, unchanged (its derived tables are then worked out once).
  private(set) var isStandard = false

  public init(
    world: [ParameterDefinition<WorldSpec>], worldGroups: [ParameterGroup], device: [ParameterDefinition<DeviceSpec>],
    deviceGroups: [ParameterGroup]
  ) {
    (self.world, self.worldGroups, self.device, self.deviceGroups) = (world, worldGroups, device, deviceGroups)
  }

  /// SyncSim's own keys.
  public static let standard: ParameterSet = {
    var set = ParameterSet(
      world: ParameterTable.world, worldGroups: ParameterTable.worldGroups, device: ParameterTable.device,
      deviceGroups: ParameterTable.deviceGroups)
    set.isStandard = true
    return set
  }()

  /// Every key of a device: those read by hand and those declared.
  var deviceKeys: [String] {
    ScenarioObject.device.keys + ParameterTable.children(of: "", table: device, groups: deviceGroups).map(\.key)
  }
}
