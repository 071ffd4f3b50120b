import Foundation
import SimModel
import SimReport
import SimScenario

/// `syncsim report DIR [--write N] [--metric M ...] [--out FILE]`: the folder's results as one
/// self-contained HTML page.
struct ReportCommand {
  static let usage = """
    usage: syncsim report DIR [--write N] [--metric M]... [--x FACTOR] [--x-scale SCALE]
                              [--title TEXT] [--label NAME=TEXT]... [--out FILE]

    Draws the results in DIR (a folder that `run` or `sweep` wrote) as one self-contained HTML
    file, DIR/report.html by default: inline SVG and CSS, no script, nothing fetched; the same
    folder gives the same bytes. Each chart is also written beside the page as report-CHART.svg
    (PAGE-CHART.svg with --out PAGE.html), to go into a paper as it is.

    A run: the latency CDF per observer group (log axis, p50/p95/p99 marked), mean time per
    stage, blocked time per policy over simulated time, device states with writes and imports,
    and one write's journey (a bar per observer, a segment per stage with its cause).
    A sweep: one chart per metric against one factor (the others as colours, the same on every
    chart): lines through the means with their 95 % band, numeric factors on numeric axes,
    categories as dodged points with no line, censored points marked (n/runs), durations in
    s/min/h, dark mode by the reader's setting.

      --write N          the write whose journey is drawn (default: the slowest)
      --metric M         a sweep metric to draw (repeatable; default latency.p50, latency.p95,
                         converged, convergenceTime, rowsNotVisible)
      --x FACTOR         a sweep's x-axis factor (default: the first numeric factor with two values)
      --x-scale SCALE    auto, linear or log (default: the factor's scale in the scenario, else
                         auto: log where the values span two decades)
      --title TEXT       the page's title (default: the sweep's title, else the scenario's name)
      --label NAME=TEXT  what a factor or metric is called in axes, legends and headings
                         (repeatable; default: the factor's label in the scenario, else its name)
      --out FILE         where to write the page (and its .svg files beside it)

    A sweep's scenario may give the title and labels itself: "sweep": {"title": ...,
    "factors": [{"path": ..., "values": [...], "label": ..., "scale": "log"}]}.
    """

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    var options = ReportOptions()
    let writeText = try args.option("write")
    options.metrics = try args.options("metric")
    options.x = try args.option("x")
    if let scale = try args.option("x-scale") {
      guard let chosen = ReportOptions.XScale(rawValue: scale) else {
        throw UsageError("--x-scale must be auto, linear or log, not \"\(scale)\"")
      }
      options.xScale = chosen
    }
    options.title = try args.option("title")
    for pair in try args.options("label") {
      guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
        throw UsageError("--label takes NAME=TEXT (a factor's path or a metric's name), not \"\(pair)\"")
      }
      options.labels.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
    }
    let out = try args.option("out").map { path throws(UsageError) in try OutputPath.file(path, option: "--out") }
    let directories = try args.positionals()
    guard directories.count == 1 else {
      throw UsageError(directories.isEmpty ? "report needs a results folder" : "report takes one folder")
    }
    if let writeText {
      guard let value = Int(writeText), value > 0 else {
        throw UsageError("--write must be a write number (1, 2, ...)")
      }
      options.write = value
    }
    let directory = directories[0]
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
      console.error("error: \(directory): no such folder (report reads the folder that `run` or `sweep` wrote)")
      return .dataError
    }
    // The charts beside the page are named after it: a second page's never overwrite the first's.
    let pageName = out.map { OutputPath.split($0).1 } ?? "report.html"
    options.chartPrefix = pageName.hasSuffix(".html") ? String(pageName.dropLast(5)) : pageName
    options.marks = marks(directory)
    switch ReportPage.files(directory: directory, options: options) {
    case .failure(let problem):
      console.error("error: \(directory): \(problem.message)" + (problem.hint.map { " (\($0))" } ?? ""))
      return .dataError
    case .success(let files):
      let target = out ?? directory + "/report.html"
      let (folder, name) = OutputPath.split(target)
      do {
        try ScenarioFile.write([(name, files[0].text)] + files.dropFirst().map { ($0.name, $0.text) }, to: folder)
      } catch {
        console.error("error: cannot write \(target): \(OutputPath.describe(error))")
        return .cannotCreate
      }
      console.print("report \(target)" + (files.count > 1 ? " and \(files.count - 1) chart .svg files beside it" : ""))
      return .success
    }
  }

  /// A run folder's timeline actions and battery thresholds, from its resolved scenario; nil for
  /// a folder without one (a sweep, a trace) or one this version cannot decode.
  static func marks(_ directory: String) -> RunMarks? {
    guard FileManager.default.fileExists(atPath: OutputPath.join(directory, "summary.csv")),
      let node = CheckCommand.committedScenario(directory),
      let (scenario, _) = try? ScenarioDecoder.decode(
        Array(node.serialized().utf8), file: "resolved.json", checkingSweep: false, acceptLarge: true)
    else { return nil }
    var marks = RunMarks()
    for action in scenario.spec.timeline {
      for device in action.devices where device < scenario.deviceNames.count {
        marks.actions.append(
          RunMarks.Action(seconds: action.at.seconds, device: scenario.deviceNames[device], name: action.action.name))
      }
    }
    for policy in scenario.spec.scheduler.policies {
      for level in policy.batteryThresholds where !marks.thresholds.contains(where: { $0.percent == level }) {
        marks.thresholds.append(RunMarks.Threshold(percent: level, policy: policy.name))
      }
    }
    return marks
  }
}
