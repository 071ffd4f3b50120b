import SimKernel

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
  public var name: String { Self.definition.name }
  public var inputs: PolicyInputs { [.runHistory, .conditions, .appState] }

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

  public static let definition = PolicyDefinition(
    name: "rateLimit",
    summary: "sliding windows of runs per app; a full window refuses until its oldest run leaves it",
    source: "[RE] dasd iOS 18.2", isOnByDefault: true,
    options: [
      PolicyOption(
        key: "windows", kind: .rateLimitWindows, defaultText: "60/60s, 120/5m, 360/1h, 480/4h, 1080/24h",
        source: "[RE] `_DASRateLimiterUtilities`", meaning: "at most `maxRuns` runs within each `window`"),
      PolicyOption(
        key: "lowPowerWindow", kind: .duration(positive: false, maxSeconds: 30 * 86_400), defaultText: "1h",
        source: "[RE] 3600 s", meaning: "shorter windows are extended to this in Low Power Mode while unplugged"),
      PolicyOption(
        key: "exemptPushLaunches", kind: .bool, defaultText: "true", source: "[RE]",
        meaning: "an app launched for a background push skips the limiter"),
    ]
  ) { options in
    var policy = ActivityRateLimitPolicy(windows: options.rateLimitWindows("windows") ?? cloudKitWindows)
    if let window = options.seconds("lowPowerWindow") { policy.lowPowerWindowSeconds = window }
    if let exempt = options.bool("exemptPushLaunches") { policy.exemptPushLaunches = exempt }
    return policy
  }

  /// How many more runs it takes at least before some window could be full: the least, over the
  /// windows, of `maxRuns` minus the runs in the window at `now`. Windows are counted at their Low
  /// Power Mode length when that is longer, so the bound holds whatever the device's power state.
  /// Runs only leave windows as time passes, so the bound stays valid until the next run.
  public func headroom(after runs: ArraySlice<SimTime>, at now: SimTime) -> Int {
    RecentRuns.withView(of: runs) { headroom(after: $0, at: now) }
  }

  /// `headroom(after:at:)` over the run history's view.
  func headroom(after runs: RecentRuns, at now: SimTime) -> Int {
    var least = Int.max
    for window in windows {
      let cutoff = now.advanced(by: SimDuration(nanoseconds: -lowPowerLength(window).nanoseconds))
      least = min(least, window.maxRuns - (runs.count - runs.firstIndex(after: cutoff)))
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
    RecentRuns.withView(of: activity.recentRuns) { evaluate(activity, runs: $0) }
  }

  /// The verdict on `activity` given the app's runs, oldest first (the context's own
  /// `recentRuns` is not read).
  func evaluate(_ activity: PolicyContext, runs: RecentRuns) -> PolicyVerdict {
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
}
