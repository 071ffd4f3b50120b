import SimKernel

/// One dasd policy: a pure function of the activity and the device's conditions (MODEL §5).
///
/// Policies are independent values evaluated in a fixed order; the first refusal names the
/// blocking policy. A researcher adds a policy by conforming a value type to this protocol and
/// putting it in `SchedulerParameters.policies`, without touching the others.
public protocol SchedulerPolicy: Sendable {
  /// The policy's name in results (`rateLimit`, `lowPowerMode`, ...): a CSV-safe identifier.
  var name: String { get }
  /// Decides whether `activity` may start now.
  func evaluate(_ activity: PolicyContext) -> PolicyVerdict
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

  public init(
    now: SimTime, kind: ActivityKind, requestedAt: SimTime, launchedForPush: Bool, runningInGroup: Int,
    recentRuns: ArraySlice<SimTime>, batteryPercent: Double, pluggedIn: Bool, lowPowerMode: Bool, online: Bool,
    devicesInAccount: Int
  ) {
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

/// Activity Group policy: at most `limit` running activities per group (one group per app and
/// store). [A] TN3163 rationale `currentAvailableLimit == 0`; limit 1 [assumed].
public struct ActivityGroupPolicy: SchedulerPolicy {
  public var limit = 1
  public var name: String { "activityGroup" }
  public init(limit: Int = 1) { self.limit = limit }
  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    activity.runningInGroup < limit ? .proceed : .refuse(until: nil)
  }
}

/// One sliding window of the rate limiter: at most `maxRuns` runs within `windowSeconds`.
public struct RateLimitWindow: Equatable, Sendable {
  public var maxRuns: Int
  public var windowSeconds: Double { didSet { length = SimDuration(seconds: windowSeconds) } }
  /// `windowSeconds` on the clock, converted once rather than on every decision.
  private(set) var length: SimDuration

  public init(maxRuns: Int, windowSeconds: Double) {
    self.maxRuns = maxRuns
    self.windowSeconds = windowSeconds
    length = SimDuration(seconds: windowSeconds)
  }
}

/// Activity Rate Limit policy: sliding windows per app, all enforced together; when a window is
/// full, the next eligible time is the oldest run in it plus the window length.
/// [RE] dasd iOS 18.2 `_DASRateLimiterUtilities`, `_DASActivityRateLimitTracker`.
public struct ActivityRateLimitPolicy: SchedulerPolicy {
  /// [RE] 60/60 s, 120/5 min, 360/1 h, 480/4 h, 1080/24 h.
  public var windows: [RateLimitWindow] = ActivityRateLimitPolicy.cloudKitWindows
  /// Windows shorter than this are extended to it in Low Power Mode while unplugged. [RE] 3600 s.
  public var lowPowerWindowSeconds = 3600.0
  /// Activities of an app launched for a background push skip the limiter. [RE] on.
  public var exemptPushLaunches = true
  public var name: String { "rateLimit" }

  public static let cloudKitWindows = [
    RateLimitWindow(maxRuns: 60, windowSeconds: 60),
    RateLimitWindow(maxRuns: 120, windowSeconds: 300),
    RateLimitWindow(maxRuns: 360, windowSeconds: 3600),
    RateLimitWindow(maxRuns: 480, windowSeconds: 14_400),
    RateLimitWindow(maxRuns: 1080, windowSeconds: 86_400),
  ]

  public init(windows: [RateLimitWindow] = ActivityRateLimitPolicy.cloudKitWindows) {
    self.windows = windows
  }

  /// How many more runs it takes at least before some window could be full: the least, over the
  /// windows, of `maxRuns` minus the runs in the window at `now`. Windows are counted at their Low
  /// Power Mode length when that is longer, so the bound holds whatever the device's power state.
  /// Runs only leave windows as time passes, so the bound stays valid until the next run.
  public func headroom(after runs: ArraySlice<SimTime>, at now: SimTime) -> Int {
    runs.withUnsafeBufferPointer { headroom(after: $0, at: now) }
  }

  /// `headroom(after:at:)` over runs lent in place (the world's run histories are not arrays).
  func headroom(after runs: UnsafeBufferPointer<SimTime>, at now: SimTime) -> Int {
    var least = Int.max
    for window in windows {
      let length = lowPowerLength(window)
      let cutoff = now.advanced(by: SimDuration(nanoseconds: -length.nanoseconds))
      let inWindow = runs.count - Self.firstIndex(after: cutoff, in: runs)
      least = min(least, window.maxRuns - inWindow)
    }
    return least
  }

  /// `window`'s length in Low Power Mode while unplugged: extended to `lowPowerWindowSeconds`.
  func lowPowerLength(_ window: RateLimitWindow) -> SimDuration {
    SimDuration(seconds: max(window.windowSeconds, lowPowerWindowSeconds))
  }

  /// The longest window in effect; runs older than this can be forgotten.
  public var horizonSeconds: Double { max(lowPowerWindowSeconds, windows.map(\.windowSeconds).max() ?? 0) }

  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    activity.recentRuns.withUnsafeBufferPointer { evaluate(activity, runs: $0) }
  }

  /// The verdict on `activity` given the app's runs, oldest first, lent in place (the context's
  /// own `recentRuns` is not read).
  func evaluate(_ activity: PolicyContext, runs: UnsafeBufferPointer<SimTime>) -> PolicyVerdict {
    if exemptPushLaunches && activity.launchedForPush { return .proceed }
    let extend = activity.lowPowerMode && !activity.pluggedIn
    var eligible = activity.now
    // The run read for the window with the most runs so far: a window of at least as many runs
    // starts no later, so if that run is already outside this window, this one is not full
    // either and its run (a cold cache line, usually) need not be read.
    var readRuns = 0
    var readRun = SimTime.zero
    for window in windows where runs.count >= window.maxRuns {
      let length = extend ? lowPowerLength(window) : window.length
      // Runs are sorted: (now − window, now] holds at least maxRuns runs exactly when the run
      // maxRuns places from the newest is inside it — and the window frees a place when that
      // run leaves. O(1) per window.
      let cutoff = activity.now.advanced(by: SimDuration(nanoseconds: -length.nanoseconds))
      if readRuns > 0 && window.maxRuns >= readRuns && readRun <= cutoff { continue }
      let blocking = runs[runs.count - window.maxRuns]
      if window.maxRuns >= readRuns {
        readRuns = window.maxRuns
        readRun = blocking
      }
      if blocking > cutoff {
        eligible = max(eligible, blocking.advanced(by: length))
      }
    }
    return eligible > activity.now ? .refuse(until: eligible) : .proceed
  }

  /// Where the first run after `cutoff` is in `runs` (sorted), or `runs.count` if none is.
  static func firstIndex(after cutoff: SimTime, in runs: UnsafeBufferPointer<SimTime>) -> Int {
    var low = 0
    var high = runs.count
    while low < high {
      let mid = (low + high) / 2
      if runs[mid] <= cutoff { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

/// Low Power Mode policy: refuses while Low Power Mode is on and (unplugged or battery below the
/// threshold); lifts when that ends. [A] TN3163 + [RE] iOS 18.2 `_DASLowPowerModePolicy` (30 %).
public struct LowPowerModePolicy: SchedulerPolicy {
  public var batteryThresholdPercent = 30.0
  public var name: String { "lowPowerMode" }
  public init() {}
  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    let enforced = activity.lowPowerMode
      && (!activity.pluggedIn || activity.batteryPercent < batteryThresholdPercent)
    return enforced ? .refuse(until: nil) : .proceed
  }
}

/// Network policy: CloudKit activities wait for connectivity. [A] CKSyncEngine docs.
public struct NetworkPolicy: SchedulerPolicy {
  public var name: String { "network" }
  public init() {}
  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    activity.online ? .proceed : .refuse(until: nil)
  }
}

/// Single-device account policy: an account with one known device waits `delaySeconds` after
/// submission. [RE] CKScheduler priority 0: 4 h delay, 24 h grace; unconfirmed for Core Data, so
/// not in the default set.
public struct SingleDeviceAccountPolicy: SchedulerPolicy {
  public var delaySeconds = 14_400.0
  public var name: String { "singleDeviceAccount" }
  public init() {}
  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    guard activity.devicesInAccount == 1 else { return .proceed }
    let eligible = activity.requestedAt.advanced(by: SimDuration(seconds: delaySeconds))
    return eligible > activity.now ? .refuse(until: eligible) : .proceed
  }
}
