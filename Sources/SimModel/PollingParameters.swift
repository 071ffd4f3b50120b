import SimKernel

/// When a public-database store fetches besides its polls.
public enum PublicFetchRule: String, Sendable, CaseIterable, Codable {
  case launch, activation, interval
}

/// Public-database polling (spec §7).
public struct PollingParameters: Equatable, Sendable {
  /// Interval between polls. [A] TN3164: 30 min in development, up to 24 h in production.
  public var interval = SimDuration(seconds: 1800.0)
  /// Whether polls happen only during app use. [W] WWDC20 (appUse); [A] technotes allow wallClock.
  public var appUseClock = true
  /// When a public-database store fetches besides its polls. [W] WWDC20: "on launch or about
  /// every 30 minutes of use" (launch). The default, activation, also fetches when a suspended
  /// app comes back to the front: the model does not terminate suspended apps, and iOS does so
  /// often within hours, so a person's reopening after hours is usually a launch [assumed];
  /// launch is the literal rule; interval fetches on polls only.
  public var fetchOn = PublicFetchRule.activation
  public init() {}
}
