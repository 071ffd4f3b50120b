/// A text form of the unified log that developers have, declared as a row: how a record's first
/// line looks, what continues it, and where its time and process stand. The reader tries the rows
/// in order on each line; a line that begins no record continues the record before it (a message
/// printed over several lines: dasd's policy list, a dictionary, an error on the line after the
/// failure). A new form is one row here. `docs/event-log.md` lists them with their sources.
public struct LogShape: Sendable {
  public let name: String
  /// Where the form comes from (a tool, an OS version, a document that prints it).
  public let source: String
  /// Its first line, as printed (shortened).
  public let example: String
  /// Where the time stands, and what it leaves out.
  public let time: String
  /// Reads a line that begins a record of this form; nil when it does not.
  let head: @Sendable (Substring) -> LogHead?

  /// The rows before this one are the dated forms (a line begins with a date or a time of day).
  static let datedForms = 7

  /// The forms, most specific first (a `log show` default line would also pass as a dated plain line).
  public static let table: [LogShape] = [
    LogShape(
      name: "log show (default), log stream", source: "log(1) on macOS; Eclectic Light, Unified log structure (2022)",
      example: "2023-12-07 14:14:15.227567+0100 0x2b4f1  Info  0x0  1203  0  YourCoolApp: (CoreData) [com.apple.coredata:CloudKit] …",
      time: "date, time to the microsecond, UTC offset", head: logShowDefault),
    LogShape(
      name: "log show --style syslog", source: "log(1) on macOS",
      example: "2022-08-25 15:22:01.008417+0100 localhost bluetoothd[1766]: [com.apple.bluetooth:…] …",
      time: "date, time to the microsecond, UTC offset", head: logShowSyslog),
    LogShape(
      name: "log show --style compact", source: "log(1) on macOS (the form pasted most in 2026)",
      example: "2026-09-02 19:02:24.184 Df YourCoolApp[8931:28be9a] [com.apple.coredata:CloudKit] …",
      time: "date, time to the millisecond, local time without an offset", head: logShowCompact),
    LogShape(
      name: "Xcode console with metadata, NSLog", source: "Xcode 14 and earlier by default; Xcode 15+ with the date and process shown",
      example: "2018-11-20 14:14:43.579932+0100 YourCoolApp[43018:2262975] CoreData: …",
      time: "date, time to the microsecond, UTC offset", head: xcodeMetadata),
    LogShape(
      name: "dated line", source: "log show output trimmed by hand, app logs",
      example: "2026-10-04 03:44:02.522 apsd [com.apple.apsd:pushHistory] … receivedPushWithTopic …",
      time: "date, time; an offset when printed", head: datedPlain),
    LogShape(
      name: "compact, time of day", source: "log show --style compact with the date cut off",
      example: "20:48:27.339 E  YourCoolApp [com.apple.cloudkit:Engine] failed sending changes for context: …",
      time: "time of day only (the date from --date)", head: compactTimeOfDay),
    LogShape(
      name: "time of day", source: "log lines trimmed to the time of day",
      example: "00:44:55.494342 apsd: receivedPushWithTopic …", time: "time of day only (the date from --date)",
      head: timeOfDayPlain),
    LogShape(
      name: "technote example", source: "TN3163 and TN3164 print messages so, wrapped to the page",
      example: "default  … 14:14:16.621530 …  YourCoolApp  CloudKit: CoreData+CloudKit: ",
      time: "time of day, the date elided as …", head: technotePrinted),
    LogShape(
      name: "Console.app Copy", source: "Console.app, rows selected and copied (tab-separated columns)",
      example: "default\t14:14:15.227567+0100\tYourCoolApp\tCoreData+CloudKit: …",
      time: "the time column, often without a date", head: consoleCopy),
    LogShape(
      name: "Xcode console as copied", source: "Xcode 15 and later by default (no date, no process)",
      example: "CoreData: debug: CoreData+CloudKit: -[PFCloudKitOptionsValidator validateOptions:…](36): …",
      time: "none: the order of lines is the only clock", head: xcodeBare),
    LogShape(
      name: "a CKError as an app prints it", source: "an app's own print or Logger of a CKError",
      example: "<CKError 0x600001522970: \"Service Unavailable\" (6/2022); …; Retry after 30.0 seconds>",
      time: "none", head: appCKError),
  ]

  /// The first row whose form `line` begins, and what it read. In a file whose records have
  /// times, a line without one begins no record: it continues the one before (a message's
  /// `error: …` line, in a technote's example).
  static func head(of line: Substring, timedFile: Bool, tryFirst: Int? = nil) -> LogHead? {
    // A file keeps to one form: the last line's is tried first (a 1.4 GB log read 20 → ? MB/s).
    if let tryFirst, var head = table[tryFirst].head(line), !(timedFile && head.stamp == nil) {
      head.shape = tryFirst
      return head
    }
    for (index, shape) in table.enumerated() where index != tryFirst {
      if var head = shape.head(line) {
        if timedFile && head.stamp == nil { return nil }
        head.shape = index
        return head
      }
    }
    return nil
  }
}

/// The first line of one record, as a form printed it: its time as written, the process that
/// logged it when the form names one, and where its message starts.
struct LogHead {
  var shape = 0
  var stamp: LogStamp?
  var process: Substring?
  var message: Substring
}

// MARK: - The forms' first lines

/// `2023-12-07 14:14:15.227567+0100 0x2b4f1    Info  0x0  1203  0    process: message`.
@Sendable private func logShowDefault(_ line: Substring) -> LogHead? {
  guard let (stamp, rest) = LogStamp.read(line), stamp.day != nil, stamp.offsetSeconds != nil else { return nil }
  var words = Words(rest)
  guard let thread = words.next(), thread.hasPrefix("0x"), let type = words.next(), logTypes.contains(type),
    let activity = words.next(), activity.hasPrefix("0x"), let pid = words.next(), pid.allSatisfy(\.isNumber),
    let ttl = words.next(), ttl.allSatisfy(\.isNumber)
  else { return nil }
  let body = words.rest
  guard let colon = body.byteRange(of: ": ") else { return LogHead(stamp: stamp, process: nil, message: body) }
  return LogHead(stamp: stamp, process: body[..<colon.lowerBound], message: body[colon.upperBound...])
}

/// `2022-08-25 15:22:01.008417+0100 localhost process[pid]: message`.
@Sendable private func logShowSyslog(_ line: Substring) -> LogHead? {
  bracketedProcess(line, suffix: "]:") { host in !host.contains("[") }
}

/// `2026-09-02 19:02:24.184 Df process[pid:tid] message`.
@Sendable private func logShowCompact(_ line: Substring) -> LogHead? {
  bracketedProcess(line, suffix: "]") { type in compactTypes.contains(type) }
}

/// `2018-11-20 14:14:43.579932+0100 process[pid:tid] message`.
@Sendable private func xcodeMetadata(_ line: Substring) -> LogHead? {
  bracketedProcess(line, suffix: "]", lead: nil)
}

/// A dated line whose process is written with its pid in brackets (`name[pid]` or
/// `name[pid:tid]`, ending in `suffix`), after a first column `lead` accepts when there is one.
private func bracketedProcess(_ line: Substring, suffix: String, lead: ((Substring) -> Bool)?) -> LogHead? {
  guard let (stamp, rest) = LogStamp.read(line), stamp.day != nil else { return nil }
  var words = Words(rest)
  if let lead {
    guard let first = words.next(), lead(first) else { return nil }
  }
  guard let process = words.next(), process.hasSuffix(suffix), let open = process.firstIndex(of: "["),
    open != process.startIndex
  else { return nil }
  return LogHead(stamp: stamp, process: process[..<open], message: words.rest)
}

/// `2026-10-04 03:44:02.522 process [subsystem:category] message`, or any dated line.
@Sendable private func datedPlain(_ line: Substring) -> LogHead? {
  guard let (stamp, rest) = LogStamp.read(line), stamp.day != nil else { return nil }
  return plainBody(stamp, rest)
}

/// `20:48:27.339 E  process [subsystem:category] message`.
@Sendable private func compactTimeOfDay(_ line: Substring) -> LogHead? {
  guard let (stamp, rest) = LogStamp.read(line), stamp.day == nil else { return nil }
  var words = Words(rest)
  guard let type = words.next(), compactTypes.contains(type), let process = words.next() else { return nil }
  let name = process.firstIndex(of: "[").map { process[..<$0] } ?? process
  return LogHead(stamp: stamp, process: name.isEmpty ? nil : name, message: words.rest)
}

/// `00:44:55.494342 process: message`.
@Sendable private func timeOfDayPlain(_ line: Substring) -> LogHead? {
  guard let (stamp, rest) = LogStamp.read(line), stamp.day == nil else { return nil }
  return plainBody(stamp, rest)
}

/// `default  … 14:14:16.621530 …  process  message` (TN3163's and TN3164's examples; the date and
/// other columns elided as `…`).
@Sendable private func technotePrinted(_ line: Substring) -> LogHead? {
  var words = Words(line)
  guard let level = words.next(), technoteLevels.contains(level) else { return nil }
  var rest = words.rest.drop { $0 == " " || $0 == "…" }
  guard let (stamp, after) = LogStamp.read(rest) else { return nil }
  rest = after.drop { $0 == " " || $0 == "…" }
  var body = Words(rest)
  let process = body.next()
  return LogHead(stamp: stamp, process: process, message: body.rest)
}

/// Console.app's Copy: tab-separated columns, one of them a time, the last the message.
@Sendable private func consoleCopy(_ line: Substring) -> LogHead? {
  guard line.contains("\t") else { return nil }
  let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
  guard fields.count >= 3, let timeIndex = fields.firstIndex(where: { LogStamp.field($0) != nil }),
    timeIndex < fields.count - 1
  else { return nil }
  let stamp = LogStamp.field(fields[timeIndex])
  let process = fields[(timeIndex + 1)..<(fields.count - 1)].first { field in
    !field.isEmpty && !technoteLevels.contains(field) && !field.hasPrefix("0x") && !field.allSatisfy(\.isNumber)
  }
  return LogHead(stamp: stamp, process: process, message: fields[fields.count - 1])
}

/// `CoreData: debug: CoreData+CloudKit: …`, `error: CoreData+CloudKit: …` (Xcode prints an error
/// twice, bare and prefixed: the reader counts it once).
@Sendable private func xcodeBare(_ line: Substring) -> LogHead? {
  let text = line.drop { $0 == " " }
  for prefix in xcodePrefixes where text.hasPrefix(prefix) {
    return LogHead(stamp: nil, process: nil, message: text)
  }
  return nil
}

/// `<CKError 0x…: "Request Rate Limited" (7/2061); …>` alone on a line.
@Sendable private func appCKError(_ line: Substring) -> LogHead? {
  let text = line.drop { $0 == " " }
  return text.hasPrefix("<CKError 0x") ? LogHead(stamp: nil, process: nil, message: text) : nil
}

/// What follows a stamp on a plain line: `process: message`, `process [sub:cat] message`, or the message.
private func plainBody(_ stamp: LogStamp, _ rest: Substring) -> LogHead {
  var words = Words(rest)
  let body = rest.drop { $0 == " " }
  guard let first = words.next() else { return LogHead(stamp: stamp, process: nil, message: body) }
  let afterFirst = words.rest
  if first.hasSuffix(":"), first.count > 1, !first.dropLast().contains(":") {
    return LogHead(stamp: stamp, process: first.dropLast(), message: afterFirst)
  }
  if afterFirst.hasPrefix("[") || afterFirst.hasPrefix("("), first.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }) {
    return LogHead(stamp: stamp, process: first, message: afterFirst)
  }
  return LogHead(stamp: stamp, process: nil, message: body)
}

private let logTypes: Set<Substring> = ["Default", "Info", "Debug", "Error", "Fault", "Signpost", "Activity", "Timesync", "Loss", "State"]
private let compactTypes: Set<Substring> = ["Df", "Db", "In", "I", "E", "Er", "F", "Fa", "A", "Ac", "De", "Sp", "S"]
private let technoteLevels: Set<Substring> = ["default", "info", "debug", "error", "fault", "Default", "Info", "Debug", "Error", "Fault"]
private let xcodePrefixes = [
  "CoreData: ", "CoreData+CloudKit:", "error: ", "fault: ", "warning: ", "debug: ", "CloudKit: ", "info: ",
]

/// Space-separated words of a line, one at a time; `rest` is what follows the last word taken.
struct Words {
  var rest: Substring
  init(_ text: Substring) { rest = text }
  mutating func next() -> Substring? {
    let trimmed = rest.drop { $0 == " " }
    guard !trimmed.isEmpty else {
      rest = trimmed
      return nil
    }
    let end = trimmed.firstIndex(of: " ") ?? trimmed.endIndex
    rest = trimmed[end...].drop { $0 == " " }
    return trimmed[..<end]
  }
}
