import SimKernel

/// One dasd policy: a pure function of the activity and the device's conditions (spec §5).
///
/// Policies are independent values evaluated in a fixed order; the first refusal names the
/// blocking policy. A researcher adds a policy by conforming a value type to this protocol and
/// putting it in `SchedulerParameters.policies`, without touching the others.
public protocol SchedulerPolicy: Sendable {
  /// The policy's name in results (`rateLimit`, `lowPowerMode`, ...): a CSV-safe identifier.
  var name: String { get }
  /// Whether the policy reads `PolicyContext.recentRuns`. A policy that does not declares it
  /// false, and the scheduler then neither keeps a day of runs nor fills the slice for it (what a
  /// policy outside the built-in set cost: 13–15 % of a fleet's run). The default is true.
  var readsRunHistory: Bool { get }
  /// Decides whether `activity` may start now.
  func evaluate(_ activity: PolicyContext) -> PolicyVerdict
}

extension SchedulerPolicy {
  public var readsRunHistory: Bool { true }
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
