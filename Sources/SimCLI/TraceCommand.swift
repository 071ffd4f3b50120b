import Foundation
import SimScenario
import SimTwin

/// `syncsim trace LOG... [--out DIR] [--name NAME]`: an app's own sync logs reconstructed as a
/// run's result files.
struct TraceCommand {
  static let usage = """
    usage: syncsim trace LOG[=DEVICE]... [--out DIR] [--name NAME] [--clock-offset DEVICE=SECONDS]...
                         [--date YYYY-MM-DD] [--utc-offset +HHMM]

    Reads an app's sync logs and writes them as SyncSim's result files, so that `report`
    and your own plots treat your app as they treat a run (docs/event-log.md):
    summary.csv, latency.csv (each save with each other device of its account: when it
    was exported, when it became visible, the stages the log shows, `unknown` for the
    rest), activities.csv (each export and import: requested, decided, started, finished,
    the policies that refused it), pushes.csv (each push: apsd's receipt, the app's
    handler) and timeline.csv (app state and power as logged).

    LOG files may be SyncSim's event log (JSON lines), or the unified log in any form a
    developer has: `log show` (default, compact, syslog, json, ndjson), `log stream`, the
    Xcode console with or without its metadata, Console.app's Copy, the technotes' examples,
    a CKError an app printed. A message over several lines is read as one. A unified log is one
    device's, named by its file (iphone.log, unified-iphone.log) or as LOG=DEVICE says.
    Lines that are no sync event are counted and skipped; a sync line that does not parse
    is listed with its line number. Every failure the log shows is a finding: printed,
    written to findings.csv with what it means and what to do.

      --out DIR    where to write the files (default Results/trace-NAME)
      --name NAME  the name in the files' scenario column (default: trace)
      --clock-offset DEVICE=SECONDS
                   DEVICE's clock was behind the others' by SECONDS (negative: ahead): its events
                   are moved by as much (repeatable). A device whose pushes and imports arrive
                   before the exports that caused them is named in a note, with its offset.
      --date YYYY-MM-DD
                   the date of times of day printed without one (default: 2000-01-01, noted)
      --utc-offset +HHMM
                   the zone of local times printed without an offset (log show's
                   compact style; default: read as UTC, noted)
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
    let options = try LogInput.options(&args)
    let (paths, named) = try LogInput.files(try args.positionals(), options: options)
    guard !paths.isEmpty else { throw UsageError("trace needs at least one log file") }
    guard let log = LogInput.read(paths, options: named, offsets: offsets, needsEvents: false, console: console) else {
      return .dataError
    }
    let trace = SyncTrace(log)
    for finding in ClockSkew.findings(trace) {
      console.print("note         \(ScenarioProblem.printable(ClockSkew.remark(finding, devices: log.devices)))")
    }
    let directory = out ?? "Results/trace-\(name)"
    let files = TraceFiles(trace: trace, log: log, name: name, version: SyncSimCommand.version).files
    do {
      try ResultSetWriter.write(files.map { ResultFile(name: $0.name, text: $0.text) }, to: directory, kind: .trace)
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
    if !log.isTimed {
      console.print("latency      unknown: the log has no times (its order and outcomes are read)")
    } else if visible.isEmpty {
      console.print("latency      no row became visible (\(trace.rows.count) rows)")
    } else {
      // The quantiles `run` prints, in its layout, so that the two lines compare (issue 73).
      let p50 = TwinStatistics.quantile(visible, 0.5)
      let p95 = TwinStatistics.quantile(visible, 0.95)
      console.print(
        "latency      p50 \(DurationText.display(seconds: p50))   p95 \(DurationText.display(seconds: p95))   max "
          + "\(DurationText.display(seconds: visible.last!))   (\(visible.count) of \(trace.rows.count) rows visible)")
    }
    LogInput.printFindings(log, console: console)
  }
}

