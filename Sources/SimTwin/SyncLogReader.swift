import Foundation
import SimScenario

/// Reads sync logs into one `SyncLog`: SyncSim's event log (JSON lines with `source`), the unified
/// log as `log show --style ndjson` or `--style json` writes it (objects with `eventMessage`), and
/// every text form a developer has of the unified log (`LogShape.table`: `log show`'s styles, the
/// Xcode console with and without its metadata, Console.app's Copy, the technotes' examples, a
/// CKError an app printed). A text record is its first line and the lines that continue it, read
/// as one message. Files may mix forms. A unified log is one device's: its lines belong to the
/// device named by the file (its name without the extension, or as `Options.deviceNames` says),
/// in account "".
public enum SyncLogReader {
  /// Most problems kept (the rest are counted).
  static let maxProblems = 200
  /// Most events read: past them a log would take over the 4 GB memory limit (`bytesPerEvent`
  /// measured on a dense event log, docs/limits.md). Reading stops there, with a problem.
  public static let bytesPerEvent = 480
  public static let maxEvents = 4_000_000_000 / bytesPerEvent
  /// Most lines, and bytes, one record may take; a longer one is closed there.
  static let maxRecordLines = 400
  static let maxRecordBytes = 256 << 10

  /// How to read what a log leaves out.
  public struct Options: Sendable {
    /// A file's device, by the file's path as given (`trace FILE=NAME`).
    public var deviceNames: [String: String] = [:]
    /// Local times without an offset (`log show --style compact`) are this many seconds east of
    /// UTC; nil reads them as UTC, with a note.
    public var utcOffsetSeconds: Int?
    /// The date of times of day without one, as days since 1970-01-01; nil assumes 2000-01-01,
    /// with a note.
    public var date: Int?
    public init() {}
  }

  /// The date assumed for times of day when no date is given.
  public static let assumedDate = LogClock.daysFromCivil(year: 2000, month: 1, day: 1)

  /// Reads `paths` in order. Throws only when a file cannot be opened.
  public static func read(_ paths: [String], options: Options = Options()) throws -> SyncLog {
    var reader = Reading(options: options)
    reader.log.files = paths
    for (fileIndex, path) in paths.enumerated() { try reader.readFile(path, index: fileIndex) }
    return reader.finish()
  }

  /// A unified log's device: the file's name without its folder, its extension and a leading
  /// `unified-` or `xcode-` (`unified-iphone.log`, as `run --event-log` names them, is `iphone`).
  static func deviceName(of path: String) -> String {
    var name = Substring(path.split(separator: "/").last.map(String.init) ?? path)
    if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
    if name.hasPrefix("unified-") && name.count > 8 { name = name.dropFirst(8) }
    if name.hasPrefix("xcode-") && name.count > 6 { name = name.dropFirst(6) }
    return String(name)
  }
}

/// The state of one reading: the log so far and the open file's records.
struct Reading {
  var log = SyncLog()
  let options: SyncLogReader.Options
  var problemCount = 0
  var coreDataEvents: [String: (started: Bool, finished: Bool)] = [:]  // lookup only
  var deviceIndex: [String: Int] = [:]  // lookup only: "account\u{0}name" → position in log.devices

  // The open file.
  var path = ""
  var fileIndex = 0
  var fileDevice = ""
  var lineNumber = 0
  var lastTime = Int64.min
  /// Work a `Finished request` finishes: the started and not finished, per device.
  var open: [Int: [LogEvent.Work]] = [:]
  var record: OpenRecord?
  /// The previous record's message with its level prefix cut (Xcode prints an error twice).
  var previousMessage: Substring = ""
  var previousStamp: LogStamp?
  /// The clock of records without a date or without any time.
  var dayShift = 0
  var lastTimeOfDay: Int64?
  var untimedOrder: Int64 = 0
  var timedRecords = 0
  var untimedRecords = 0
  var lastPushHandled: [Int: Int64] = [:]
  /// Each device's finding still gathering the lines of one failure (until new work starts).
  var openFinding: [Int: Int] = [:]
  var jsonArray: JSONArrayScanner?
  /// The form of the file's last record's first line (tried first on the next line).
  var lastShape: Int?
  /// A dated line without an anchor, kept as bytes in case a line after it continues it with one.
  var pendingHead: (bytes: [UInt8], line: Int)?
  /// Whether the events reached `SyncLogReader.maxEvents`.
  var full = false

  init(options: SyncLogReader.Options) { self.options = options }

  /// A record being assembled: its head, the lines that continue it, and where it began.
  struct OpenRecord {
    var head: LogHead
    var continuation: [String] = []
    var bytes = 0
    var line: Int
    var hasAnchor: Bool
    var hasMarker: Bool
  }

  mutating func problem(_ message: String, line: Int? = nil) {
    problemCount += 1
    if log.problems.count < SyncLogReader.maxProblems {
      log.problems.append(SyncLog.Problem(file: path, line: line ?? lineNumber, message: message))
    }
  }

  mutating func device(_ name: String, account: String) -> Int {
    let key = account + "\u{0}" + name
    if let index = deviceIndex[key] { return index }
    log.devices.append(SyncLog.Device(name: name, account: account))
    deviceIndex[key] = log.devices.count - 1
    return log.devices.count - 1
  }

  mutating func readFile(_ path: String, index: Int) throws {
    var lines = try LogLines(path: path)
    self.path = path
    fileIndex = index
    fileDevice = options.deviceNames[path] ?? SyncLogReader.deviceName(of: path)
    lineNumber = 0
    lastTime = Int64.min
    open = [:]
    record = nil
    previousMessage = ""
    previousStamp = nil
    dayShift = 0
    lastTimeOfDay = nil
    timedRecords = 0
    untimedRecords = 0
    jsonArray = nil
    lastShape = nil
    pendingHead = nil
    var sawContent = false
    while let (bytes, truncated) = lines.next() {
      lineNumber += 1
      log.linesRead += 1
      if truncated {
        problem("a line of over \(LogLines.maxLineBytes) bytes; cut off and skipped")
        continue
      }
      let first = bytes.first(where: { $0 != 32 && $0 != 9 })
      if !sawContent, let first {
        sawContent = true
        // `log show --style json` writes one array of objects over many lines.
        if first == UInt8(ascii: "[") { jsonArray = JSONArrayScanner() }
      }
      if var scanner = jsonArray {
        let objects = scanner.feed(bytes)
        jsonArray = scanner
        if objects.isEmpty { log.linesSkipped += 1 }
        for object in objects { readJSONObject(object) }
        continue
      }
      readLine(bytes, first: first)
    }
    if jsonArray?.isInside == true { problem("the JSON array ends inside an object") }
    flush()
    noteClocks()
  }

  mutating func readLine(_ bytes: ArraySlice<UInt8>, first: UInt8?) {
    guard let first else {
      // A blank line ends a record.
      if record != nil { flush() } else { log.linesSkipped += 1 }
      return
    }
    if first == UInt8(ascii: "{"), String(validating: bytes, as: UTF8.self) == nil {
      // Undecodable bytes (in a device's name, say) would read as another device: a problem.
      problem("a JSON line that is not UTF-8 (undecodable bytes, in a name or a message)")
      return
    }
    if first == UInt8(ascii: "{"), let node = try? JSONParser.parse(Array(bytes)), case .object(let members) = node.value {
      flush()
      readJSONMembers(members)
      return
    }
    let lineHasAnchor = UnifiedLogLine.anchors.contains { bytes.contains(bytes: $0) }
    // Most of a sysdiagnose is other processes' lines: in a dated file, a line without an anchor
    // that begins as the file's lines begin (a date) starts a record that is no sync record,
    // unless a line after it continues it with an anchor. It is kept as bytes, decoded only then
    // (decoding every line read a 1.4 GB log at 22 MB/s).
    if !lineHasAnchor, record?.hasAnchor != true, let shape = lastShape, shape < LogShape.datedForms,
      Self.beginsDated(bytes)
    {
      flush()
      pendingHead = (Array(bytes), lineNumber)
      log.linesSkipped += 1
      return
    }
    if !lineHasAnchor, record == nil, pendingHead != nil {
      // A line continuing a record that is no sync record.
      log.linesSkipped += 1
      return
    }
    if lineHasAnchor, record == nil, let pending = pendingHead, !Self.beginsDated(bytes),
      let text = String(validating: pending.bytes, as: UTF8.self),
      let head = LogShape.head(of: text[...], timedFile: true, tryFirst: lastShape)
    {
      // The anchor is in a line continuing the kept record: that record is read after all.
      log.linesSkipped -= 1
      record = OpenRecord(head: head, line: pending.line, hasAnchor: false, hasMarker: false)
    }
    pendingHead = nil
    let text: String
    if let valid = String(validating: bytes, as: UTF8.self) {
      text = valid
    } else {
      if UnifiedLogLine.markers.contains(where: { bytes.contains(bytes: Array($0.utf8)) }) {
        problem("a sync line that is not UTF-8")
      } else {
        log.linesSkipped += 1
      }
      return
    }
    let line = text[...]
    if let head = LogShape.head(of: line, timedFile: timedRecords > 0 || record?.head.stamp != nil, tryFirst: lastShape) {
      lastShape = head.shape
      flush()
      record = OpenRecord(
        head: head, line: lineNumber, hasAnchor: lineHasAnchor,
        hasMarker: lineHasAnchor && UnifiedLogLine.markers.contains { line.has($0) })
      return
    }
    if first == UInt8(ascii: "{") && record == nil {
      problem("not JSON, and no record for it to continue")
      return
    }
    guard var open = record else {
      // A line before any record: a record of its own with no time of its own.
      if !lineHasAnchor {
        log.linesSkipped += 1
        return
      }
      record = OpenRecord(
        head: LogHead(stamp: nil, process: nil, message: line), line: lineNumber, hasAnchor: true,
        hasMarker: UnifiedLogLine.markers.contains { line.has($0) })
      return
    }
    let marker = UnifiedLogLine.markers.contains { line.has($0) }
    if marker && open.hasMarker && open.head.stamp != nil {
      // A second sync message in one record: a message whose start has no time the file's
      // other records have.
      problem("a sync message without a time where the file's other records have one (the start of its line is not a form docs/event-log.md lists)")
      return
    }
    if open.continuation.count >= SyncLogReader.maxRecordLines || open.bytes + bytes.count > SyncLogReader.maxRecordBytes {
      log.linesSkipped += 1
      return
    }
    open.continuation.append(text[...].trimmingSpaces())
    open.bytes += bytes.count
    open.hasMarker = open.hasMarker || marker
    open.hasAnchor = open.hasAnchor || marker || lineHasAnchor
    record = open
  }

  /// Reads the open record, if it is a sync record.
  mutating func flush() {
    guard let open = record else { return }
    record = nil
    let lines = 1 + open.continuation.count
    guard open.hasAnchor else {
      log.linesSkipped += lines
      _ = time(of: open.head.stamp)
      return
    }
    var message = String(open.head.message)
    for part in open.continuation where !part.isEmpty { message += " " + part }
    // Xcode prints each error twice, bare (`error: …`) and prefixed (`CoreData: error: …`).
    let unprefixed = Self.unprefixed(message[...])
    if !previousMessage.isEmpty, unprefixed == previousMessage, open.head.stamp == previousStamp {
      log.duplicateLines += lines
      return
    }
    previousMessage = unprefixed
    previousStamp = open.head.stamp
    let time = time(of: open.head.stamp)
    log.syncRecords += 1
    let device = device(fileDevice, account: "")
    let savedLine = lineNumber
    lineNumber = open.line
    defer { lineNumber = savedLine }
    read(message[...], at: time, device: device)
    if let failure = SyncFailureReader.read(message[...]) { addFinding(failure, message: message[...], at: time, device: device) }
  }

  /// The record's time on the device's clock, microseconds since 1970 UTC.
  mutating func time(of stamp: LogStamp?) -> Int64 {
    guard let stamp else {
      untimedRecords += 1
      if timedRecords > 0, lastTime > Int64.min { return lastTime }
      // A log without times: its order is its clock, 1 ms a record.
      untimedOrder += 1_000
      return untimedOrder
    }
    timedRecords += 1
    var day = stamp.day
    if day == nil {
      if let last = lastTimeOfDay, stamp.microsecondOfDay < last - 12 * 3_600_000_000 { dayShift += 1 }
      lastTimeOfDay = stamp.microsecondOfDay
      day = (options.date ?? SyncLogReader.assumedDate) + dayShift
      if options.date == nil { log.assumedDateFiles.insertOnce(path) }
    }
    var offset = stamp.offsetSeconds
    if offset == nil {
      offset = options.utcOffsetSeconds ?? 0
      if options.utcOffsetSeconds == nil { log.localTimeFiles.insertOnce(path) }
    }
    return (Int64(day!) * 86_400 - Int64(offset!)) * 1_000_000 + stamp.microsecondOfDay
  }

  mutating func noteClocks() {
    if untimedRecords > 0 && timedRecords == 0 { log.untimedFiles.insertOnce(path) }
  }

  /// A message's events.
  mutating func read(_ message: Substring, at time: Int64, device: Int) {
    switch UnifiedLogLine.read(message: message, at: time) {
    case .skip: break
    case .problem(let text): problem(text)
    case .event(let time, let kind):
      if case .pushHandled = kind {
        // CloudKit's listener and Core Data's handler both log one push: it was handled once.
        if let last = lastPushHandled[device], time - last < 1_000_000, time >= last { return }
        lastPushHandled[device] = time
      }
      add(time, device, kind)
    case .executing(let time, let work):
      if open[device]?.last == work { return }
      add(time, device, .started(work, trigger: nil))
    case .finishedRequest(let time, let request, let succeeded, let error):
      switch request {
      case .work(let work):
        // An import is known by its request when the log has no `Beginning automated import`.
        if open[device]?.contains(work) != true { add(time, device, .started(work, trigger: nil)) }
        add(time, device, .finished(work, succeeded: succeeded, records: nil, error: error))
      case .other: break
      case .unnamed:
        // A request's end finishes the work in progress, if any (an export's request ends
        // before its activity's line, which may not be logged at all).
        guard let work = open[device]?.last else { return }
        add(time, device, .finished(work, succeeded: succeeded, records: nil, error: error))
      }
    case .objectsToExport(let time, let count): add(time, device, .pending(records: count))
    }
  }

  mutating func add(_ time: Int64, _ device: Int, _ kind: LogEvent.Kind) {
    guard log.events.count < SyncLogReader.maxEvents else {
      if !full {
        full = true
        problem(
          "the logs hold over \(SyncLogReader.maxEvents) sync events, about \(SyncLogReader.bytesPerEvent) B of memory each: "
            + "past the 4 GB limit; the rest is not read (cut the log with log show --start and --end, or --predicate)")
      }
      return
    }
    if time < lastTime {
      log.linesOutOfOrder += 1
      if log.firstOutOfOrder == nil { log.firstOutOfOrder = (path, lineNumber) }
      log.largestJumpBack = max(log.largestJumpBack, lastTime - time)
    }
    lastTime = max(lastTime, time)
    switch kind {
    case .started(let work, _):
      open[device, default: []].append(work)
      openFinding[device] = nil
    case .finished(let work, _, _, _):
      if let position = open[device]?.lastIndex(of: work) { open[device]!.remove(at: position) }
    default: break
    }
    log.events.append(LogEvent(time: time, device: device, kind: kind, file: fileIndex, line: lineNumber))
  }

  /// A failure as a finding, or as more lines of the device's open finding.
  mutating func addFinding(_ failure: SyncFailureReader.Failure, message: Substring, at time: Int64, device: Int) {
    let untimed = untimedRecords > 0 && timedRecords == 0
    if let index = openFinding[device] {
      var finding = log.findings[index]
      let sameError = failure.code == nil || finding.code == nil || (failure.domain == finding.domain && failure.code == finding.code)
      // A message with no error of its own (`immediate sync failed with error: … Code=2`) tells
      // the same failure again.
      let consequence = failure.domain == nil
      if sameError && (consequence || failure.continuesEarlier || failure.work == finding.work || Self.generic(finding.work) || Self.generic(failure.work)) {
        finding.repeats += 1
        if Self.generic(finding.work) && !Self.generic(failure.work) { finding.work = failure.work }
        if finding.code == nil, let code = failure.code {
          finding.domain = failure.domain
          finding.code = code
          finding.internalCode = failure.internalCode
          describe(&finding, failure, message)
        }
        if finding.retryAfterSeconds == nil { finding.retryAfterSeconds = failure.retryAfterSeconds }
        if finding.records.isEmpty && !failure.records.isEmpty {
          describe(&finding, failure, message)
        }
        if finding.detail.isEmpty { finding.detail = failure.detail }
        log.findings[index] = finding
        return
      }
    }
    var finding = SyncFinding(
      device: device, time: untimed ? nil : time, order: log.syncRecords, file: fileIndex, line: lineNumber,
      work: failure.work, domain: failure.domain, code: failure.code, internalCode: failure.internalCode, name: "",
      meaning: "", action: "", source: "", retryAfterSeconds: failure.retryAfterSeconds, detail: failure.detail)
    describe(&finding, failure, message)
    log.findings.append(finding)
    openFinding[device] = log.findings.count - 1
  }

  /// Fills a finding's name, meaning, action and source from the catalogue.
  func describe(_ finding: inout SyncFinding, _ failure: SyncFailureReader.Failure, _ message: Substring) {
    finding.records = failure.records.map { record in
      "\(record.code)\(record.internalCode.map { "/\($0)" } ?? "") \(record.name)"
        + (record.message.isEmpty ? "" : ": \(record.message)")
    }
    if failure.work == "sync stopped" {
      let reason = ErrorCatalogue.stopReasons.first { message.has($0.text) }
      finding.name = failure.detail.isEmpty ? "sync stopped" : "torn down: \(failure.detail)"
      finding.meaning = reason?.meaning ?? "the container stopped syncing this store"
      finding.action = reason?.action ?? "find what removed or released the store; sync needs it loaded"
      finding.source = "Core Data's mirroring delegate (NSCloudKitMirroringDelegate tearDown:)"
      return
    }
    var entry = finding.domain.flatMap { domain in finding.code.flatMap { ErrorCatalogue.entry(domain: domain, code: $0, message: message) } }
    var name = entry?.name ?? (finding.code == nil ? "no error printed" : "an error the catalogue does not list")
    if finding.code == 2, let first = failure.records.first,
      let inner = ErrorCatalogue.entry(domain: "CKErrorDomain", code: first.code, message: message)
    {
      name = "partial failure: \(inner.name)"
      entry = inner
    }
    finding.name = name
    finding.meaning = entry?.meaning ?? ""
    finding.action = entry?.action ?? ""
    finding.source = entry?.source ?? ""
  }

  /// Whether a line begins with a date (`2026-03-01 `) or a time of day (`20:48:27`), as the
  /// dated forms' lines do.
  static func beginsDated(_ bytes: ArraySlice<UInt8>) -> Bool {
    func digit(_ offset: Int) -> Bool {
      let index = bytes.startIndex + offset
      return index < bytes.endIndex && bytes[index] >= 48 && bytes[index] <= 57
    }
    func byte(_ offset: Int, _ value: UInt8) -> Bool {
      let index = bytes.startIndex + offset
      return index < bytes.endIndex && bytes[index] == value
    }
    if digit(0) && digit(1) && digit(2) && digit(3) && byte(4, 45) && digit(5) && digit(6) && byte(7, 45) { return true }
    return digit(0) && digit(1) && byte(2, 58) && digit(3) && digit(4) && byte(5, 58)
  }

  static func generic(_ work: String) -> Bool { work == "request" || work == "CloudKit request" }

  /// A message without Xcode's `CoreData: ` and level prefixes.
  static func unprefixed(_ message: Substring) -> Substring {
    var text = message.drop { $0 == " " }
    if text.hasPrefix("CoreData: ") { text = text.dropFirst(10) }
    for level in ["error: ", "fault: ", "warning: ", "debug: ", "info: ", "CloudKit: "] where text.hasPrefix(level) {
      return text.dropFirst(level.count)
    }
    return text
  }

  mutating func readJSONObject(_ bytes: [UInt8]) {
    guard let node = try? JSONParser.parse(bytes), case .object(let members) = node.value else {
      problem("an object of the JSON array that is not a JSON object")
      return
    }
    readJSONMembers(members)
  }

  mutating func readJSONMembers(_ members: [(key: String, value: JSONNode)]) {
    if let message = members.first(where: { $0.key == "eventMessage" }) {
      guard case .string(let text) = message.value.value,
        case .string(let stamp)? = members.first(where: { $0.key == "timestamp" })?.value.value
      else {
        problem("a unified-log object needs \"timestamp\" and \"eventMessage\" strings")
        return
      }
      let bytes = Array(text.utf8)[...]
      let isSync = UnifiedLogLine.anchors.contains { bytes.contains(bytes: $0) }
      guard isSync else {
        log.linesSkipped += 1
        return
      }
      guard let time = LogClock.microseconds(stamp[...]) else {
        problem("\"timestamp\" is not a time (\(ScenarioProblem.printable(String(stamp.prefix(40)))))")
        return
      }
      log.syncRecords += 1
      let device = device(fileDevice, account: "")
      timedRecords += 1
      read(text[...], at: time, device: device)
      if let failure = SyncFailureReader.read(text[...]) { addFinding(failure, message: text[...], at: time, device: device) }
      return
    }
    switch EventLogLine.read(members) {
    case .skip: log.linesSkipped += 1
    case .problem(let message): problem(message)
    case .events(let named, let events, let key):
      let device = device(named.name, account: named.account)
      var events = events
      if let key, !key.isEmpty {
        let seen = coreDataEvents["\(device) \(key)"] ?? (false, false)
        var kept: [(time: Int64, kind: LogEvent.Kind)] = []
        for event in events {
          if case .started = event.kind, seen.started { continue }
          if case .finished = event.kind, seen.finished { continue }
          kept.append(event)
        }
        if kept.isEmpty { log.duplicateEvents += 1 }
        let finishes = events.contains { if case .finished = $0.kind { true } else { false } }
        coreDataEvents["\(device) \(key)"] = (true, seen.finished || finishes)
        events = kept
      }
      timedRecords += 1
      for event in events { add(event.time, device, event.kind) }
    }
  }

  mutating func finish() -> SyncLog {
    dropFarTimes()
    if problemCount > log.problems.count {
      log.problems.append(
        SyncLog.Problem(
          file: log.files.last ?? "", line: 0, message: "\(problemCount - log.problems.count) more problems not listed"))
    }
    log.events = LogEvent.inTimeOrder(log.events)
    return log
  }
}

extension Reading {
  /// Most microseconds an event may lie from the log's median time: a year. Further is a clock
  /// set wrong (year 0001 beside 2026), which would stretch the log's span to centuries: such
  /// events are problems, left out.
  static let farTime: Int64 = 366 * 86_400 * 1_000_000

  mutating func dropFarTimes() {
    guard log.events.count > 2 else { return }
    let times = log.events.map(\.time).sorted()
    let median = times[times.count / 2]
    var kept: [LogEvent] = []
    kept.reserveCapacity(log.events.count)
    for event in log.events {
      let distance = event.time >= median ? event.time.subtractingReportingOverflow(median) : median.subtractingReportingOverflow(event.time)
      if distance.overflow || distance.partialValue > Self.farTime {
        path = log.files.indices.contains(event.file) ? log.files[event.file] : path
        problem(
          "a time more than a year from the log's other events (\(LogClock.text(event.time).prefix(10)) beside \(LogClock.text(median).prefix(10))): a clock set wrong; the event is left out",
          line: event.line)
      } else {
        kept.append(event)
      }
    }
    log.events = kept
  }
}

extension Array where Element == String {
  mutating func insertOnce(_ value: String) {
    if !contains(value) { append(value) }
  }
}

/// The objects of `log show --style json`'s array, one at a time, as their lines arrive.
struct JSONArrayScanner {
  var depth = 0
  var inString = false
  var escaped = false
  var current: [UInt8] = []
  var isInside: Bool { depth > 0 }

  /// Feeds a line; returns the objects it completes.
  mutating func feed(_ line: ArraySlice<UInt8>) -> [[UInt8]] {
    var done: [[UInt8]] = []
    for byte in line {
      if depth > 0 { current.append(byte) }
      if inString {
        if escaped {
          escaped = false
        } else if byte == 92 {
          escaped = true
        } else if byte == 34 {
          inString = false
        }
        continue
      }
      switch byte {
      case 34: if depth > 0 { inString = true }
      case 123:
        if depth == 0 { current = [123] }
        depth += 1
      case 125:
        depth -= 1
        if depth == 0 {
          done.append(current)
          current = []
        }
        depth = max(0, depth)
      default: break
      }
    }
    if depth > 0 { current.append(10) }
    return done
  }
}
