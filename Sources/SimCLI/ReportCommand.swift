import Foundation
import SimReport

/// `syncsim report DIR [--write N] [--metric M ...] [--out FILE]`: the folder's results as one
/// self-contained HTML page.
struct ReportCommand {
  static let usage = """
    usage: syncsim report DIR [--write N] [--metric M]... [--x FACTOR] [--out FILE]

    Draws the results in DIR (a folder that `run` or `sweep` wrote) as one self-contained HTML
    file, DIR/report.html by default: inline SVG and CSS, no script, nothing fetched; the same
    folder gives the same bytes.

    A run: the latency CDF per observer group (log axis, p50/p95/p99 marked), mean time per
    stage, blocked time per policy over simulated time, device states with writes and imports,
    and one write's journey (a bar per observer, a segment per stage with its cause).
    A sweep: one chart per metric against one factor (the others as colours, the same on every
    chart): lines through the means with their 95 % band, numeric factors on numeric axes (log
    where they span two decades), durations in s/min/h, dark mode by the reader's setting; each
    chart is also written beside the page as report-CHART.svg (PAGE-CHART.svg with --out
    PAGE.html), to go into a paper as it is.

      --write N    the write whose journey is drawn (default: the slowest)
      --metric M   a sweep metric to draw (repeatable; default latency.p50, latency.p95,
                   converged, convergenceTime, rowsNotVisible)
      --x FACTOR   a sweep's x-axis factor (default: the first numeric factor with two values)
      --out FILE   where to write the page (and a sweep's .svg files beside it)
    """

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let writeText = try args.option("write")
    let metrics = try args.options("metric")
    let xFactor = try args.option("x")
    let out = try args.option("out").map { path throws(UsageError) in try OutputPath.file(path, option: "--out") }
    let directories = try args.positionals()
    guard directories.count == 1 else {
      throw UsageError(directories.isEmpty ? "report needs a results folder" : "report takes one folder")
    }
    var write: Int?
    if let writeText {
      guard let value = Int(writeText), value > 0 else {
        throw UsageError("--write must be a write number (1, 2, ...)")
      }
      write = value
    }
    let directory = directories[0]
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
      console.error("error: \(directory): no such folder (report reads the folder that `run` or `sweep` wrote)")
      return .dataError
    }
    // The charts beside the page are named after it: a second page's never overwrite the first's.
    let pageName = out.map { OutputPath.split($0).1 } ?? "report.html"
    let prefix = pageName.hasSuffix(".html") ? String(pageName.dropLast(5)) : pageName
    switch ReportPage.files(directory: directory, write: write, metrics: metrics, x: xFactor, chartPrefix: prefix) {
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
}
