/// What a log can see: the kinds of event it holds and whether its work's ends count records.
/// A simulated log is looked at through the lens of the app's log before the two are compared,
/// so that a summary means the same in both (a Core Data event log has no dasd decisions, and
/// sees only the pushes the app's handler got; the unified log also sees those apsd held).
public struct LogLens: Sendable, Equatable {
  public var kinds: Set<String>
  public var countsRecords: Bool

  public init(_ events: [LogEvent]) {
    kinds = Set(events.map { Self.kind($0.kind) })
    countsRecords = events.contains {
      if case .finished(_, _, let records, _) = $0.kind { return records != nil }
      return false
    }
  }

  static func kind(_ kind: LogEvent.Kind) -> String {
    switch kind {
    case .save: "save"
    case .pending: "pending"
    case .decision: "decision"
    case .importRequested: "importRequested"
    case .started: "started"
    case .finished: "finished"
    case .pushReceived: "pushReceived"
    case .pushHandled: "pushHandled"
    case .appState: "appState"
    case .power: "power"
    }
  }

  /// `events` as a log of this kind would show them.
  public func apply(_ events: [LogEvent]) -> [LogEvent] {
    var out: [LogEvent] = []
    out.reserveCapacity(events.count)
    for var event in events where kinds.contains(Self.kind(event.kind)) {
      if !countsRecords, case .finished(let work, let succeeded, _, let error) = event.kind {
        event.kind = .finished(work, succeeded: succeeded, records: nil, error: error)
      }
      out.append(event)
    }
    return out
  }
}
