import Foundation

/// `report.html` for a run folder or a sweep folder: one self-contained file (inline SVG and CSS,
/// no script, nothing fetched), the same bytes for the same folder.
public enum ReportPage {
  /// The page for `directory`: a sweep when it holds `sweep-summary.csv`, else a run.
  /// `write` picks the journey drawn for a run; `metrics` the panels of a sweep.
  public static func html(directory: String, write: Int? = nil, metrics: [String] = []) -> Result<String, ReportProblem>
  {
    var options = ReportOptions()
    options.write = write
    options.metrics = metrics
    return files(directory: directory, options: options).map { $0[0].text }
  }

  /// The page (`report.html`, first) and each chart as its own `.svg` file, to be written beside
  /// it, named `<chartPrefix>-<chart>.svg` (the page's own name without `.html`, so a second page
  /// beside the first keeps its own charts).
  public static func files(directory: String, options: ReportOptions) -> Result<[(name: String, text: String)], ReportProblem>
  {
    if let sweep = SweepPage(directory: directory, options: options) {
      return sweep.html().map { [("report.html", $0.page)] + $0.charts.map { ($0.file, $0.svg) } }
    }
    guard var run = RunPage(directory: directory, write: options.write) else {
      return .failure(
        ReportProblem(
          message: "no summary.csv (run) or sweep-summary.csv (sweep) in it",
          hint: "report reads the folder that `run` or `sweep` wrote"))
    }
    if options.x != nil || options.xScale != nil || !options.metrics.isEmpty || !options.labels.isEmpty {
      return .failure(
        ReportProblem(
          message: "--metric, --x, --x-scale and --label choose a sweep's charts, and this folder holds a run",
          hint: "a run's report draws its own charts; --title and --write apply to it"))
    }
    run.chartPrefix = options.chartPrefix
    run.title = options.title
    run.marks = options.marks
    return run.html().map { page in [("report.html", page)] + charts(in: page, prefix: options.chartPrefix) }
  }

  /// Every `<svg id="…">` chart of a page as a standalone file (`SweepPage.standalone`).
  static func charts(in page: String, prefix: String) -> [(name: String, text: String)] {
    var result: [(name: String, text: String)] = []
    var rest = page[...]
    while let start = rest.range(of: "<svg id=\""), let end = rest[start.upperBound...].range(of: "</svg>") {
      let svg = String(rest[start.lowerBound..<end.upperBound]) + "\n"
      let id = rest[start.upperBound...].prefix { $0 != "\"" }
      result.append(("\(prefix)-\(id).svg", SweepPage.standalone(svg)))
      rest = rest[end.upperBound...]
    }
    return result
  }

  /// The charts' own classes, light and dark (`prefers-color-scheme`): the page's style and each
  /// standalone `.svg` file carry them.
  static let chartStyle = """
    .grid{stroke:#e6e6e6;stroke-width:1}.axis{stroke:#444;stroke-width:1}
    .tick{font-size:11px;fill:#444}.label{font-size:12px;fill:#222}.small{font-size:11px;fill:#333}
    .marker{font-size:12px;font-weight:600;fill:#222}.inbar{font-size:11px;fill:#fff}
    text{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif}
    @media (prefers-color-scheme: dark){.grid{stroke:#3a3a3a}.axis{stroke:#bbb}.tick{fill:#bbb}.label,.marker{fill:#eee}.small{fill:#ddd}}
    """

  static let style = """
    body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px auto;max-width:960px;color:#222;background:#fff}
    h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
    .meta{color:#555;font-size:13px}code{font-size:12px}
    table{border-collapse:collapse;font-size:13px;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
    table.metrics th{background:#f6f6f6;font-weight:600}
    svg{display:block;margin:8px 0;font-family:inherit}
    .caption{font-size:13px;color:#555;margin:4px 0 12px}.note{font-style:italic;color:#666}
    @media (prefers-color-scheme: dark){body{color:#e6e6e6;background:#121212}.meta,.caption,.note{color:#aaa}
    h2{border-color:#444}th,td{border-color:#444}table.metrics th{background:#222}}
    """ + "\n" + chartStyle

  /// The page's second wall behind escaping: no script of any kind (inline, attribute handlers,
  /// `javascript:` links), nothing fetched, no form sent, no base to redirect links; only the
  /// inline style runs. Chromium honours it in a `file://` page, where reports are opened.
  static let contentSecurityPolicy =
    "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    + "base-uri 'none'; form-action 'none'"

  /// The HTML document around `body`.
  static func document(title: String, body: String) -> String {
    var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    out += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(contentSecurityPolicy)\">\n"
    out += "<title>\(XMLText.escaped(title))</title>\n<style>\n\(style)\n</style>\n</head>\n<body>\n"
    out += body
    out +=
      "<p class=\"caption\">Made by <code>syncsim report</code> from the folder's CSV files; no script, nothing fetched.</p>\n"
    return out + "</body>\n</html>\n"
  }
}
