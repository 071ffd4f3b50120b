import SimKernel

/// One device condition: a state of the device that a scenario sets, a scheduler policy reads and
/// `timeline.csv` samples (spec §3).
public struct ConditionDefinition: Sendable {
  /// What the condition's values are.
  public enum Kind: Sendable, Equatable {
    /// On or off (1 or 0).
    case bool
    /// A level, percent (0 to 100).
    case percent
    /// One of these names, in increasing order (the value is the name's position).
    case level([String])
  }

  /// The condition's key in `{"set": {"<name>": value}}` and its column in `timeline.csv`.
  public var name: String
  public var kind: Kind
  /// Its value at the start of a run, unless the device's power or network section says otherwise.
  public var defaultValue: Double
  /// The timeline actions that also set it (today's spellings), for the documentation.
  public var actions: [String]
  /// Whether `timeline.csv` samples it in every run; otherwise only in runs whose timeline sets it.
  public var alwaysSampled: Bool
  /// The source tag of the condition and its default.
  public var source: String
  public var meaning: String

  /// The text a value takes in `timeline.csv` and the report: a level's name, a flag, a number.
  public func text(_ value: Double) -> String {
    switch kind {
    case .bool: value != 0 ? "1" : "0"
    case .percent: value.rounded() == value ? String(Int(value)) : String(value)
    case .level(let names): names[max(0, min(names.count - 1, Int(value)))]
    }
  }
}

/// The device conditions, declared once: the timeline's generic `set` action, the policies'
/// context, `timeline.csv`'s columns and the documentation come from this table.
///
/// The first `builtInCount` are kept as typed fields of the device's state (the policies of the
/// standard set read them on every decision); a condition after them is one row here, and is kept
/// in `DeviceState.levels` at its position after the built-in ones.
public enum ConditionTable {
  /// The built-in conditions' defaults are the device's start conditions' (`power.*`, `network.*`).
  private static let start = DeviceConditions()

  public static let all: [ConditionDefinition] = [
    ConditionDefinition(
      name: "battery", kind: .percent, defaultValue: start.batteryPercent, actions: ["battery"], alwaysSampled: true,
      source: "`power.battery`", meaning: "battery level, percent"),
    ConditionDefinition(
      name: "pluggedIn", kind: .bool, defaultValue: start.pluggedIn ? 1 : 0, actions: ["plug", "unplug"],
      alwaysSampled: true,
      source: "`power.pluggedIn`", meaning: "the device is on external power"),
    ConditionDefinition(
      name: "lowPowerMode", kind: .bool, defaultValue: start.lowPowerMode ? 1 : 0, actions: ["lowPower"],
      alwaysSampled: true,
      source: "`power.lowPowerMode`", meaning: "Low Power Mode is on"),
    ConditionDefinition(
      name: "online", kind: .bool, defaultValue: start.online ? 1 : 0, actions: ["goOnline", "goOffline"],
      alwaysSampled: true,
      source: "`network.online`", meaning: "the device has a network connection"),
    ConditionDefinition(
      name: "thermal", kind: .level(["nominal", "light", "moderate", "heavy", "trapping", "sleeping"]),
      defaultValue: 0, actions: [], alwaysSampled: false,
      source: "[RE] dasd `_DASThermalPolicy` levels 0, 10, …, 50",
      meaning: "the device's thermal pressure level (dasd's 0, 10, 20, 30, 40, 50)"),
  ]

  /// How many conditions are typed fields of the device's state: battery, pluggedIn,
  /// lowPowerMode, online.
  public static let builtInCount = 4
  /// How many conditions beyond the built-in ones a device can hold (`DeviceState.levels`).
  public static let levelCapacity = 4

  /// The position of the condition named `name`, or nil.
  public static func index(named name: String) -> Int? { all.firstIndex { $0.name == name } }

  /// The slot in `DeviceState.levels` (and `PolicyContext.levels`) of the condition named `name`.
  /// - Precondition: it is a declared condition after the built-in ones.
  public static func levelSlot(named name: String) -> Int {
    guard let index = index(named: name), index >= builtInCount else {
      preconditionFailure("\(name) is not a declared condition after the built-in ones")
    }
    return index - builtInCount
  }

  /// The levels a device starts with: each declared condition's default.
  static let defaultLevels: InlineArray<4, Double> = {
    precondition(all.count - builtInCount <= levelCapacity, "ConditionTable holds more levels than a device keeps")
    var levels = InlineArray<4, Double>(repeating: 0)
    for index in builtInCount..<all.count { levels[index - builtInCount] = all[index].defaultValue }
    return levels
  }()
}
