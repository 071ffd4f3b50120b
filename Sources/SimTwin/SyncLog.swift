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

  public init() {}

  /// The device's position, added on first sight.
  mutating func device(named name: String, account: String) -> Int {
    if let index = devices.firstIndex(where: { $0.name == name && $0.account == account }) { return index }
    devices.append(Device(name: name, account: account))
    return devices.count - 1
  }

  /// Moves `device`'s events later by `microseconds` (its clock was behind the others'), keeping
  /// the events in time order.
  public mutating func shiftClock(device: Int, by microseconds: Int64) {
    for index in events.indices where events[index].device == device { events[index].time += microseconds }
    events = LogEvent.inTimeOrder(events)
  }

  /// The time of the first and last event (nil for a log without events).
  public var span: (start: Int64, end: Int64)? {
    guard let first = events.first, let last = events.last else { return nil }
    return (first.time, last.time)
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
