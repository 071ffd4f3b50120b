/// One thing a sync log says happened on a device, whichever format it came from (SyncSim's
/// event log, `log show` output, or a simulated run).
public struct LogEvent: Sendable, Equatable {
  /// Syncing work that a log shows starting and finishing.
  public enum Work: String, Sendable, CaseIterable {
    case export, `import`, setup
  }

  /// What happened.
  public enum Kind: Sendable, Equatable {
    /// The app saved a context holding `records` changed records.
    case save(records: Int)
    /// The client found `records` changes to export (Core Data's "Found N objects needing export").
    case pending(records: Int)
    /// dasd decided on the device's `work` activity: it may proceed, or the named policies
    /// (SyncSim's names where it knows them, else as logged) refused it.
    case decision(Work, proceeds: Bool, refusedBy: [String])
    /// The client asked for an import, for `trigger` (`push`, `poll`, `launch`, ... or as logged).
    case importRequested(trigger: String)
    /// Work began.
    case started(Work, trigger: String?)
    /// Work ended; `records` when the log counts them, `error` as logged (`CKErrorDomain 2`).
    case finished(Work, succeeded: Bool, records: Int?, error: String?)
    /// A push reached the device (apsd, or the app's own note of one).
    case pushReceived
    /// The app's push handler ran.
    case pushHandled
    /// The app changed state: `launch`, `foreground`, `background` or `terminate`.
    case appState(String)
    /// What the app saw of its power; nil fields were not logged.
    case power(batteryPercent: Double?, lowPowerMode: Bool?, pluggedIn: Bool?)
  }

  /// Microseconds since 1970-01-01 UTC, on the device's own clock.
  public var time: Int64
  /// The device's position in its `SyncLog`'s device list.
  public var device: Int
  public var kind: Kind
  /// Where it was read: the file's position in the log's file list, and its 1-based line (0 for
  /// an event a simulated run made).
  public var file: Int
  public var line: Int

  public init(time: Int64, device: Int, kind: Kind, file: Int = 0, line: Int = 0) {
    self.time = time
    self.device = device
    self.kind = kind
    self.file = file
    self.line = line
  }

  /// `events` sorted by time, ties in their order (a log's lines, or a run's observations).
  public static func inTimeOrder(_ events: [LogEvent]) -> [LogEvent] {
    events.indices.sorted { events[$0].time != events[$1].time ? events[$0].time < events[$1].time : $0 < $1 }
      .map { events[$0] }
  }
}
