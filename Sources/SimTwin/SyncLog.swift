/// A sync log as read: its devices, its events in time order, and what could not be read.
public struct SyncLog: Sendable {
  /// A device that appears in the log, and the account it belongs to.
  public struct Device: Sendable, Equatable {
    public var name: String
    public var account: String
  }

  /// A line that looks like a sync event and does not parse.
  public struct Problem: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { "\(file):\(line): \(message)" }
  }

  public var files: [String] = []
  public var devices: [Device] = []
  /// Every event, sorted by time (ties keep the order they were read in).
  public var events: [LogEvent] = []
  public var problems: [Problem] = []
  /// Lines read, and lines skipped because they are no sync event (counted, never an error).
  public var linesRead = 0
  public var linesSkipped = 0
  /// Lines whose time was earlier than the line before them in the same file.
  public var linesOutOfOrder = 0
  /// The first such line, and the largest jump back in time (microseconds).
  public var firstOutOfOrder: (file: String, line: Int)?
  public var largestJumpBack: Int64 = 0
  /// Core Data events seen again with nothing new (the same identifier's start or end twice).
  public var duplicateEvents = 0
  /// Lines of a message printed again at once (Xcode prints each error bare and prefixed): read once.
  public var duplicateLines = 0
  /// Records (a message's lines) that hold a sync message or a sync failure.
  public var syncRecords = 0
  /// What failed, in the order the log says it.
  public var findings: [SyncFinding] = []
  /// Files whose records have no time (the Xcode console as copied): their order is their clock.
  public var untimedFiles: [String] = []
  /// Files with times of day and no date, read on the date given (or assumed).
  public var assumedDateFiles: [String] = []
  /// Files with local times and no UTC offset, read with the offset given (or as UTC).
  public var localTimeFiles: [String] = []

  /// Whether the log has times (a log without them gives the order of events, not their durations).
  public var isTimed: Bool { untimedFiles.isEmpty }

  public init() {}

  /// Moves `device`'s events later by `microseconds` (its clock was behind the others'), keeping
  /// the events in time order.
  public mutating func shiftClock(device: Int, by microseconds: Int64) {
    for index in events.indices where events[index].device == device { events[index].time += microseconds }
    events = LogEvent.inTimeOrder(events)
  }

  /// The time of the first and last event (nil for a log without events).
  public var span: (start: Int64, end: Int64)? {
    let times = [events.first?.time, events.last?.time] + findings.map(\.time)
    let known = times.compactMap { $0 }
    guard let start = known.min(), let end = known.max() else { return nil }
    return (start, end)
  }

  /// The log with only the events in `[start, end)`.
  public func window(from start: Int64, to end: Int64) -> SyncLog {
    var copy = self
    copy.events = events.filter { $0.time >= start && $0.time < end }
    return copy
  }

  /// Human-readable remarks on what the log holds and lacks, for the terminal and the report.
  public var remarks: [String] {
    var out: [String] = []
    if linesOutOfOrder > 0 {
      let first = firstOutOfOrder.map { " (the first at \($0.file):\($0.line)" } ?? " ("
      let jump = Double(largestJumpBack) / 1e6
      let jumpText = jump >= 3600 ? "\(Int((jump / 3600).rounded())) h" : jump >= 60 ? "\(Int((jump / 60).rounded())) min" : "\(jump) s"
      out.append(
        "\(linesOutOfOrder) lines came out of time order\(first), the largest jump back \(jumpText)): the events are "
          + "sorted by time\(jump >= 3600 ? "; a jump of hours is a device's clock changed, which moves its rows" : "")")
    }
    for file in untimedFiles {
      out.append(
        "\(file) has no times: the order of its events and their outcomes are read, no durations. For times, show "
          + "Xcode's timestamps (Metadata Options), or take the log with `log show` or `log collect`")
    }
    if !assumedDateFiles.isEmpty {
      out.append("\(assumedDateFiles.joined(separator: ", ")): times of day without a date, read on the date given with --date (or 2000-01-01)")
    }
    if !localTimeFiles.isEmpty {
      out.append("\(localTimeFiles.joined(separator: ", ")): local times without a UTC offset, read with --utc-offset (or as UTC): devices in other zones need it")
    }
    if duplicateLines > 0 {
      out.append("\(duplicateLines) lines printed again at once (Xcode prints each error twice) were read once")
    }
    if duplicateEvents > 0 {
      out.append("\(duplicateEvents) Core Data events repeated an identifier's start or end; each counted once")
    }
    var saves = Array(repeating: 0, count: devices.count)
    var work = Array(repeating: 0, count: devices.count)
    var pushes = Array(repeating: 0, count: devices.count)
    for event in events {
      switch event.kind {
      case .save: saves[event.device] += 1
      case .started, .finished, .decision, .importRequested: work[event.device] += 1
      case .pushReceived, .pushHandled: pushes[event.device] += 1
      default: break
      }
    }
    if saves.allSatisfy({ $0 == 0 }) { out.append("no saves: nothing about export can be measured") }
    let decisions = events.contains { if case .decision = $0.kind { true } else { false } }
    if !events.isEmpty && !decisions {
      out.append("the log has no scheduler (dasd) lines: the policies that held exports and imports are unknown")
    }
    for (index, device) in devices.enumerated() where pushes[index] > 0 && saves[index] == 0 && work[index] == 0 {
      out.append("device \(device.name) appears only in pushes: it has no saves or syncing work to measure")
    }
    for account in Set(devices.map(\.account)).sorted() where devices.filter({ $0.account == account }).count < 2 {
      let name = account.isEmpty ? "the log" : "account \(account)"
      out.append("\(name) has one device: save-to-visible latency needs a second device of the account")
    }
    return out
  }
}
