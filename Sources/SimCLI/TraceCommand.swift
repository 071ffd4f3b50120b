import Foundation
import SimScenario
import SimTwin

/// `syncsim trace LOG... [--out DIR] [--name NAME]`: an app's own sync logs reconstructed as a
/// run's result files.
struct TraceCommand {
  static let usage = """
    usage: syncsim trace LOG... [--out DIR] [--name NAME] [--clock-offset DEVICE=SECONDS]...

    Reads an app's sync logs and writes them as SyncSim's result files, so that `report`
    and your own plots treat your app as they treat a run (docs/event-log.md):
    summary.csv, latency.csv (each save with each other device of its account: when it
    was exported, when it became visible, the stages the log shows, `unknown` for the
    rest), activities.csv (each export and import: requested, decided, started, finished,
    the policies that refused it), pushes.csv (each push: apsd's receipt, the app's
    handler) and timeline.csv (app state and power as logged).

    LOG files may be SyncSim's event log (JSON lines), or the unified log as `log show`
    prints it, in its ndjson style or plain text; a unified log is one device's, named by its file
    (iphone.log, or unified-iphone.log). Lines that are no sync event are counted and
    skipped; a sync line that does not parse is listed with its line number.

      --out DIR    where to write the files (default Results/trace-NAME)
      --name NAME  the name in the files' scenario column (default: trace)
      --clock-offset DEVICE=SECONDS
                   DEVICE's clock was behind the others' by SECONDS (negative: ahead): its events
                   are moved by as much (repeatable). A device whose pushes and imports arrive
                   before the exports that caused them is named in a note, with its offset.
    """

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let name = try args.option("name") ?? "trace"
    let out = try args.option("out").map { path throws(UsageError) in try OutputPath.folder(path, option: "--out") }
    let offsets = try LogInput.offsets(&args)
    let paths = try args.positionals()
    guard !paths.isEmpty else { throw UsageError("trace needs at least one log file") }
    guard let log = LogInput.read(paths, offsets: offsets, console: console) else { return .dataError }
    let trace = SyncTrace(log)
    for finding in ClockSkew.findings(trace) {
      console.print("note         \(ScenarioProblem.printable(ClockSkew.remark(finding, devices: log.devices)))")
    }
    let directory = out ?? "Results/trace-\(name)"
    let files = TraceFiles(trace: trace, log: log, name: name, version: SyncSimCommand.version).files
    do {
      try ScenarioFile.write(files, to: directory)
    } catch {
      console.error("error: cannot write results to \(directory): \(OutputPath.describe(error))")
      return .cannotCreate
    }
    printSummary(trace, log, console: console)
    console.print("results      \(directory)/")
    return .success
  }

  static func printSummary(_ trace: SyncTrace, _ log: SyncLog, console: Console) {
    let exports = trace.activities.filter { $0.work == .export }
    let imports = trace.activities.filter { $0.work == .import }
    let visible = trace.rows.compactMap { row in row.visibleAt.map { Double($0 - trace.saves[row.save].time) / 1e6 } }
      .sorted()
    console.print(
      "devices      \(log.devices.count) (\(log.devices.map { ScenarioProblem.printable($0.name) }.joined(separator: ", ")))")
    console.print(
      "saves        \(trace.saves.count) · exports \(exports.count) · imports \(imports.count) · pushes "
        + "\(trace.pushes.count)")
    if visible.isEmpty {
      console.print("latency      no row became visible (\(trace.rows.count) rows)")
    } else {
      let p50 = TwinStatistics.quantile(visible, 0.5)
      let p90 = TwinStatistics.quantile(visible, 0.9)
      console.print(
        "latency      p50 \(DurationText.display(seconds: p50)) · p90 \(DurationText.display(seconds: p90)) · "
          + "\(visible.count) of \(trace.rows.count) rows visible")
    }
  }
}

/// Reading log files for `trace` and `fit`: problems and remarks printed, nil when nothing of a
/// sync log could be read.
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

  static func read(_ paths: [String], offsets: [(device: String, seconds: Double)] = [], console: Console) -> SyncLog? {
    var log: SyncLog
    do {
      log = try SyncLogReader.read(paths)
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
      console.error("\(ScenarioProblem.printable(problem.file)):\(problem.line): \(problem.message)")
    }
    console.print(
      "log          \(log.linesRead) lines: \(log.events.count) sync events, \(log.linesSkipped) other lines "
        + "skipped, \(log.problems.count) problems")
    for remark in log.remarks { console.print("note         \(remark)") }
    guard !log.events.isEmpty else {
      console.error("error: no sync event in \(paths.count == 1 ? "the log" : "the logs") (docs/event-log.md lists what is read)")
      return nil
    }
    return log
  }
}
