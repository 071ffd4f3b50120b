import Foundation
import SimReport

/// `syncsim report DIR [--write N] [--metric M ...] [--out FILE]`: the folder's results as one
/// self-contained HTML page.
struct ReportCommand {
  static let usage = """
    usage: syncsim report DIR [--write N] [--metric M]... [--out FILE]

    Draws the results in DIR (a folder that `run` or `sweep` wrote) as one self-contained HTML
    file, DIR/report.html by default: inline SVG and CSS, no script, nothing fetched; the same
    folder gives the same bytes.

    A run: the latency CDF per observer group (log axis, p50/p95/p99 marked), mean time per
    stage, blocked time per policy over simulated time, device states with writes and imports,
    and one write's journey (a bar per observer, a segment per stage with its cause).
    A sweep: each metric against each factor with 95 % interval bars.

      --write N    the write whose journey is drawn (default: the slowest)
      --metric M   a sweep metric to draw (repeatable; default latency.p50, latency.p95,
                   converged, convergenceTime, rowsNotVisible)
      --out FILE   where to write the page
    """

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let writeText = try args.option("write")
    let metrics = try args.options("metric")
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
    switch ReportPage.html(directory: directory, write: write, metrics: metrics) {
    case .failure(let problem):
      console.error("error: \(directory): \(problem.message)" + (problem.hint.map { " (\($0))" } ?? ""))
      return .dataError
    case .success(let page):
      let target = out ?? directory + "/report.html"
      let (folder, name) = OutputPath.split(target)
      do {
        try ScenarioFile.write([(name, page)], to: folder)
      } catch {
        console.error("error: cannot write \(target): \(OutputPath.describe(error))")
        return .cannotCreate
      }
      console.print("report \(target)")
      return .success
    }
  }
}
