import SimKernel

/// One dasd policy: a pure function of the activity and the device's conditions (spec §5).
///
/// Policies are independent values evaluated in a fixed order; the first refusal names the
/// blocking policy. A researcher adds a policy by conforming a value type to this protocol and
/// putting it in `SchedulerParameters.policies`, without touching the others.
public protocol SchedulerPolicy: Sendable {
  /// The policy's name in results (`rateLimit`, `lowPowerMode`, ...): a CSV-safe identifier.
  var name: String { get }
  /// What the policy reads of its context. The scheduler fills in only what some policy of the
  /// set reads, and keeps no run history when none reads it: a policy that declares what it
  /// reads costs a decision only its own call (an undeclared one, reading everything, cost a
  /// fleet's run 13–15 %). The default is everything.
  var inputs: PolicyInputs { get }
  /// Decides whether `activity` may start now.
  func evaluate(_ activity: PolicyContext) -> PolicyVerdict
  /// Whether this instance leaves out the rule its definition's `omittedRule` names (a run
  /// whose policy was set to model it prints no note).
  var leavesOutDocumentedRule: Bool { get }
  /// The battery levels at which this policy's verdict can change: a battery crossing one is a
  /// signal for the activities waiting on it.
  var batteryThresholds: [Double] { get }
}

extension SchedulerPolicy {
  public var inputs: PolicyInputs { .all }
  public var leavesOutDocumentedRule: Bool { true }
  public var batteryThresholds: [Double] { [] }
}

/// The parts of `PolicyContext` a policy reads (the activity itself, its kind, request time and
/// the clock, are always there).
public struct PolicyInputs: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// `recentRuns`: the app's recent activity runs (the rate limiter's).
  public static let runHistory = PolicyInputs(rawValue: 1 << 0)
  /// Battery, power, Low Power Mode and network.
  public static let conditions = PolicyInputs(rawValue: 1 << 1)
  /// `runningInGroup`: the activity group's running activities.
  public static let activityGroup = PolicyInputs(rawValue: 1 << 2)
  /// `devicesInAccount`.
  public static let account = PolicyInputs(rawValue: 1 << 3)
  /// `appInForeground` and `launchedForPush`.
  public static let appState = PolicyInputs(rawValue: 1 << 4)
  /// `levels`: the declared conditions after the built-in ones (`ConditionTable`).
  public static let levels = PolicyInputs(rawValue: 1 << 5)
  /// `client` and `appSuspendsInBackground`: the store's sync client and its app's platform.
  public static let client = PolicyInputs(rawValue: 1 << 6)
  public static let all: PolicyInputs = [
    .runHistory, .conditions, .activityGroup, .account, .appState, .levels, .client,
  ]
}

/// What a policy may look at when deciding (read-only).
public struct PolicyContext: Sendable {
  /// The current time.
  public var now: SimTime
  /// The activity's kind.
  public var kind: ActivityKind
  /// When the activity was submitted.
  public var requestedAt: SimTime
  /// Whether the app was launched in the background for a push (rate limiting exempts it).
  public var launchedForPush: Bool
  /// Activities of the activity's group that are approved and not yet finished.
  public var runningInGroup: Int
  /// Start times of the app's recent activity runs, oldest first: those within the longest
  /// rate-limit window in effect, and at least the last 24 hours' when a researcher's policy is in
  /// the set.
  public var recentRuns: ArraySlice<SimTime>
  /// Battery level, percent.
  public var batteryPercent: Double
  public var pluggedIn: Bool
  public var lowPowerMode: Bool
  public var online: Bool
  /// Devices signed in to the account (for the single-device account policy).
  public var devicesInAccount: Int
  /// Whether the app is in the foreground (work a person is waiting on is essential).
  public var appInForeground = false
  /// The declared conditions after the built-in ones, by slot (`ConditionTable.levelSlot`).
  public var levels = InlineArray<4, Double>(repeating: 0)
  /// The sync client of the activity's store.
  public var client = SyncClient.coreData
  /// Whether the app is suspended in the background (iOS); false for a Mac app.
  public var appSuspendsInBackground = true

  public init(
    now: SimTime, kind: ActivityKind, requestedAt: SimTime, launchedForPush: Bool, runningInGroup: Int,
    recentRuns: ArraySlice<SimTime>, batteryPercent: Double, pluggedIn: Bool, lowPowerMode: Bool, online: Bool,
    devicesInAccount: Int, appInForeground: Bool = false
  ) {
    self.appInForeground = appInForeground
    self.now = now
    self.kind = kind
    self.requestedAt = requestedAt
    self.launchedForPush = launchedForPush
    self.runningInGroup = runningInGroup
    self.recentRuns = recentRuns
    self.batteryPercent = batteryPercent
    self.pluggedIn = pluggedIn
    self.lowPowerMode = lowPowerMode
    self.online = online
    self.devicesInAccount = devicesInAccount
  }
}

/// A policy's answer.
public enum PolicyVerdict: Equatable, Sendable {
  /// The policy lets the activity proceed.
  case proceed
  /// The policy refuses until `until` (re-evaluate then), or until a signal when nil.
  case refuse(until: SimTime?)
}
