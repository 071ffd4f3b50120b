import Foundation
import SimScenario

/// Reads sync logs into one `SyncLog`: SyncSim's event log (JSON lines with `source`), the unified
/// log as `log show --style ndjson` writes it (JSON lines with `eventMessage`), or as `log show`
/// prints it (plain text). Each line is read on its own, so files may mix them. A unified log
/// is one device's: its lines belong to the device named by the file (its name without the
/// extension), in account "".
public enum SyncLogReader {
  /// Most problems kept (the rest are counted).
  static let maxProblems = 200

  /// Reads `paths` in order. Throws only when a file cannot be opened.
  public static func read(_ paths: [String]) throws -> SyncLog {
    var log = SyncLog()
    log.files = paths
    var coreDataEvents: [String: (started: Bool, finished: Bool)] = [:]  // lookup only
    var problemCount = 0
    for (fileIndex, path) in paths.enumerated() {
      var lines = try LogLines(path: path)
      let fileDevice = deviceName(of: path)
      var lineNumber = 0
      var lastTime = Int64.min
      /// Work a `Finished request` line finishes: the newest started and not finished, per device.
      var open: [Int: [LogEvent.Work]] = [:]
      func problem(_ message: String) {
        problemCount += 1
        if log.problems.count < maxProblems {
          log.problems.append(SyncLog.Problem(file: path, line: lineNumber, message: message))
        }
      }
      func add(_ time: Int64, _ device: Int, _ kind: LogEvent.Kind) {
        if time < lastTime {
          log.linesOutOfOrder += 1
          if log.firstOutOfOrder == nil { log.firstOutOfOrder = (path, lineNumber) }
          log.largestJumpBack = max(log.largestJumpBack, lastTime - time)
        }
        lastTime = max(lastTime, time)
        switch kind {
        case .started(let work, _): open[device, default: []].append(work)
        case .finished(let work, _, _, _):
          if let position = open[device]?.lastIndex(of: work) { open[device]!.remove(at: position) }
        default: break
        }
        log.events.append(LogEvent(time: time, device: device, kind: kind, file: fileIndex, line: lineNumber))
      }
      func unified(_ outcome: UnifiedLogLine.Outcome, _ device: Int) {
        switch outcome {
        case .skip: log.linesSkipped += 1
        case .problem(let message): problem(message)
        case .event(let time, let kind): add(time, device, kind)
        case .finishedRequest(let time, let succeeded, let error):
          // A request's end finishes the work in progress, if any (an export's request ends
          // before its activity's line, which may not be logged at all).
          guard let work = open[device]?.last else {
            log.linesSkipped += 1
            return
          }
          add(time, device, .finished(work, succeeded: succeeded, records: nil, error: error))
        case .objectsToExport(let time, let count): add(time, device, .pending(records: count))
        }
      }

      while let (bytes, truncated) = lines.next() {
        lineNumber += 1
        log.linesRead += 1
        if truncated {
          problem("a line of over \(LogLines.maxLineBytes) bytes; cut off and skipped")
          continue
        }
        let first = bytes.first(where: { $0 != 32 && $0 != 9 })
        if first == nil {
          log.linesSkipped += 1
          continue
        }
        if first == UInt8(ascii: "{") {
          let node: JSONNode
          do { node = try JSONParser.parse(Array(bytes)) } catch {
            problem("not JSON: \(error.message) (column \(error.column))")
            continue
          }
          guard case .object(let members) = node.value else {
            problem("a JSON line that is not an object")
            continue
          }
          if let message = members.first(where: { $0.key == "eventMessage" }) {
            guard case .string(let text) = message.value.value,
              case .string(let stamp)? = members.first(where: { $0.key == "timestamp" })?.value.value
            else {
              problem("an ndjson unified-log line needs \"timestamp\" and \"eventMessage\" strings")
              continue
            }
            let device = log.device(named: fileDevice, account: "")
            unified(UnifiedLogLine.readJSON(timestamp: stamp, message: text), device)
            continue
          }
          switch EventLogLine.read(members) {
          case .skip: log.linesSkipped += 1
          case .problem(let message): problem(message)
          case .events(let named, let events, let key):
            let device = log.device(named: named.name, account: named.account)
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
            for event in events { add(event.time, device, event.kind) }
          }
          continue
        }
        // Most of a sysdiagnose is other lines: a byte search for the anchors every sync line
        // holds skips them without decoding them (the reading went from 3 to 40 MB/s).
        guard UnifiedLogLine.anchors.contains(where: { bytes.contains(bytes: $0) }) else {
          log.linesSkipped += 1
          continue
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
          if UnifiedLogLine.markers.contains(where: { bytes.contains(bytes: Array($0.utf8)) }) {
            problem("a sync line that is not UTF-8")
          } else {
            log.linesSkipped += 1
          }
          continue
        }
        unified(UnifiedLogLine.readText(text[...]), log.device(named: fileDevice, account: ""))
      }

    }
    if problemCount > log.problems.count {
      log.problems.append(
        SyncLog.Problem(
          file: paths.last ?? "", line: 0, message: "\(problemCount - log.problems.count) more problems not listed"))
    }
    log.events = LogEvent.inTimeOrder(log.events)
    return log
  }

  /// A unified log's device: the file's name without its folder, its extension and a leading
  /// `unified-` (`unified-iphone.log`, as `run --event-log` names them, is `iphone`).
  static func deviceName(of path: String) -> String {
    var name = Substring(path.split(separator: "/").last.map(String.init) ?? path)
    if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
    if name.hasPrefix("unified-") && name.count > 8 { name = name.dropFirst(8) }
    return String(name)
  }
}
