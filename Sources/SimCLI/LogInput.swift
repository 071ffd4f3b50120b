import Foundation
import SimScenario
import SimTwin

/// Reading log files for `trace` and `fit`: how to read what the logs leave out, problems,
/// remarks and findings printed; nil when nothing of a sync log could be read.
enum LogInput {
  /// `--clock-offset DEVICE=SECONDS` (repeatable): a device's clock behind the others' by SECONDS
  /// (negative: ahead); its events are moved by as much.
  static func offsets(_ args: inout ArgumentList) throws(UsageError) -> [(device: String, seconds: Double)] {
    var found: [(device: String, seconds: Double)] = []
    for text in try args.options("clock-offset") {
      guard let equals = text.lastIndex(of: "="), equals != text.startIndex,
        let seconds = Double(text[text.index(after: equals)...]), seconds.isFinite, abs(seconds) <= 366 * 86_400
      else {
        throw UsageError("--clock-offset takes DEVICE=SECONDS (e.g. ipad=2.5, or ipad=-2.5 for a clock ahead), got \"\(text)\"")
      }
      found.append((String(text[..<equals]), seconds))
    }
    return found
  }

  /// `--date YYYY-MM-DD` and `--utc-offset ±HHMM`: what a log's times leave out.
  static func options(_ args: inout ArgumentList) throws(UsageError) -> SyncLogReader.Options {
    var options = SyncLogReader.Options()
    if let text = try args.option("date") {
      guard let day = day(text) else { throw UsageError("--date takes YYYY-MM-DD (e.g. 2026-10-04), got \"\(ScenarioProblem.printable(text))\"") }
      options.date = day
    }
    if let text = try args.option("utc-offset") {
      guard let seconds = utcOffset(text) else {
        throw UsageError("--utc-offset takes +HHMM or -HH:MM (e.g. +0100), got \"\(ScenarioProblem.printable(text))\"")
      }
      options.utcOffsetSeconds = seconds
    }
    return options
  }

  static func day(_ text: String) -> Int? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    return LogClock.days(year: year, month: month, day: day)
  }

  static func utcOffset(_ text: String) -> Int? {
    guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
    let digits = text.dropFirst().filter { $0 != ":" }
    guard digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let hours = Int(digits.prefix(2)),
      let minutes = Int(digits.suffix(2)), hours <= 14, minutes < 60
    else { return nil }
    return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
  }

  /// The log files, and the devices named on the command line: `FILE=DEVICE` names the device of a
  /// file whose name is not the device's (an argument that is itself an existing file is a file).
  static func files(_ arguments: [String], options: SyncLogReader.Options) throws(UsageError) -> ([String], SyncLogReader.Options) {
    var options = options
    var paths: [String] = []
    for argument in arguments {
      if !FileManager.default.fileExists(atPath: argument), let equals = argument.lastIndex(of: "="), equals != argument.startIndex {
        let path = String(argument[..<equals])
        let name = String(argument[argument.index(after: equals)...])
        guard !name.isEmpty else { throw UsageError("\(ScenarioProblem.printable(argument)): FILE=DEVICE needs a device name after =") }
        paths.append(path)
        options.deviceNames[path] = name
      } else {
        paths.append(argument)
      }
    }
    return (paths, options)
  }

  static func read(
    _ paths: [String], options: SyncLogReader.Options = SyncLogReader.Options(), offsets: [(device: String, seconds: Double)] = [],
    needsEvents: Bool = true, console: Console
  ) -> SyncLog? {
    var log: SyncLog
    do {
      log = try SyncLogReader.read(paths, options: options)
    } catch {
      console.error("error: cannot read \(ScenarioProblem.printable(String(describing: error)))")
      return nil
    }
    for (name, seconds) in offsets {
      let matching = log.devices.indices.filter { log.devices[$0].name == name }
      guard !matching.isEmpty else {
        let names = log.devices.map { ScenarioProblem.printable($0.name) }.joined(separator: ", ")
        console.error("error: --clock-offset: no device \"\(ScenarioProblem.printable(name))\" in the log (its devices: \(names))")
        return nil
      }
      for device in matching { log.shiftClock(device: device, by: Int64((seconds * 1e6).rounded())) }
      console.print("clock        \(ScenarioProblem.printable(name))'s events moved \(seconds >= 0 ? "later" : "earlier") by \(abs(seconds)) s")
    }
    for problem in log.problems {
      console.error("\(ScenarioProblem.printable(problem.file)):\(problem.line): \(ScenarioProblem.printable(problem.message))")
    }
    console.print(
      "log          \(log.linesRead) lines: \(log.syncRecords) sync messages, \(log.events.count) sync events, "
        + "\(log.findings.count) findings, \(log.linesSkipped) other lines skipped, \(log.problems.count) problems")
    for remark in log.remarks { console.print("note         \(ScenarioProblem.printable(remark))") }
    if log.events.isEmpty {
      let what = paths.count == 1 ? "the log" : "the logs"
      if log.findings.isEmpty && log.syncRecords == 0 {
        console.error("error: no sync message in \(what) (docs/event-log.md lists the forms and messages read)")
        return nil
      }
      if needsEvents {
        printFindings(log, console: console)
        console.error("error: \(what) hold\(paths.count == 1 ? "s" : "") no sync event to fit (only \(log.findings.count) findings)")
        return nil
      }
      if log.findings.isEmpty {
        console.print("note         \(log.syncRecords) sync messages and none an event SyncSim reads nor a failure (docs/event-log.md lists what is read)")
      }
    }
    return log
  }

  /// Each finding in a line: when, the device, what failed, what it means and what to do.
  static func printFindings(_ log: SyncLog, console: Console) {
    for finding in log.findings {
      let device = log.devices.indices.contains(finding.device) ? log.devices[finding.device].name : "?"
      let when = finding.time.map { LogClock.text($0) } ?? "message \(finding.order)"
      let file = log.files.indices.contains(finding.file) ? log.files[finding.file] : ""
      console.print(
        "finding      \(ScenarioProblem.printable(device)) \(when) (\(ScenarioProblem.printable(file)):\(finding.line)): "
          + ScenarioProblem.printable(finding.sentence))
    }
  }
}
