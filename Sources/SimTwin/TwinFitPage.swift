import SimKernel
import SimReport
import SimScenario

/// The fit's report page: each parameter with its interval, and each summary's observed value
/// drawn over the twin's worlds, for the part fitted and the part held back. One file, no
/// script, nothing fetched; every text from a log is escaped.
struct TwinFitPage {
  let run: TwinFitRun

  init(_ run: TwinFitRun) { self.run = run }

  /// A parameter's posterior drawn in its prior: the prior's range as a line, each particle as
  /// a dot (the heavier, the darker), the 90 % interval as a bar; on the prior's own scale.
  func posteriorStrip(_ index: Int) -> String {
    let width = 220.0
    let particles = run.posterior.particles
    let maxWeight = particles.map(\.weight).max() ?? 1
    var svg = "<svg width=\"\(Int(width))\" height=\"18\" role=\"img\"><line x1=\"0\" y1=\"9\" x2=\"\(Int(width))\" y2=\"9\" stroke=\"#bbb\"/>"
    for particle in particles {
      let x = particle.units[index] * width
      let opacity = 0.15 + 0.85 * particle.weight / max(maxWeight, 1e-300)
      svg += "<circle cx=\"\(TwinParameter.decimal(x, digits: 5))\" cy=\"9\" r=\"2\" fill=\"#1f5fa8\" fill-opacity=\"\(TwinParameter.decimal(opacity, digits: 3))\"/>"
    }
    let p = run.estimate.parameters[index]
    let low = p.parameter.unit(of: max(p.low, p.parameter.low)) * width
    let high = p.parameter.unit(of: min(p.high, p.parameter.high)) * width
    if low.isFinite && high.isFinite {
      svg += "<rect x=\"\(TwinParameter.decimal(low, digits: 5))\" y=\"14\" width=\"\(TwinParameter.decimal(max(1, high - low), digits: 5))\" height=\"3\" fill=\"#333\"/>"
    }
    return svg + "</svg>"
  }

  static func escaped(_ text: String) -> String { XMLText.escaped(text) }

  func html() -> String {
    let (covered, judged) = run.estimate.coverage(part: "holdout")
    var body = "<h1>Twin fit</h1>\n<p class=\"meta\">\(run.posterior.worlds) simulated worlds · "
      + "\(run.fit.parameters.count) parameters · fitted on the first "
      + "\(Int((Double(run.split - run.start) / Double(max(1, run.end - run.start)) * 100).rounded())) % of the log"
    if judged > 0 {
      body += " · held back: \(covered) of \(judged) summaries inside the twin's 90 % interval"
    }
    body += "</p>\n"
    for note in run.notes { body += "<p class=\"note\">\(Self.escaped(note))</p>\n" }
    body += "<h2>Parameters</h2>\n<table><tr><th>parameter</th><th>estimate</th><th>90 % interval</th><th>prior</th>"
      + "<th>identified</th><th>posterior in its prior</th></tr>\n"
    for (index, p) in run.estimate.parameters.enumerated() {
      let unit = p.parameter.unit == "ratio" ? "" : " " + p.parameter.unit
      body += "<tr><td><code>\(Self.escaped(p.parameter.path))</code></td>"
        + "<td>\(p.identified ? TwinParameter.decimal(p.estimate, digits: 3) + unit : "—")</td>"
        + "<td>\(p.identified ? TwinParameter.decimal(p.low, digits: 3) + " – " + TwinParameter.decimal(p.high, digits: 3) + unit : "—")</td>"
        + "<td>\(TwinParameter.decimal(p.parameter.low, digits: 3)) – \(TwinParameter.decimal(p.parameter.high, digits: 3))\(unit)</td>"
        + "<td>\(p.identified ? "yes" : "no: " + Self.escaped(p.note))</td><td>\(posteriorStrip(index))</td></tr>\n"
    }
    for sum in run.estimate.sums {
      body += "<tr><td><code>\(Self.escaped(sum.name))</code> (a sum)</td>"
        + "<td>\(sum.identified ? TwinParameter.decimal(sum.estimate, digits: 3) + " s" : "—")</td>"
        + "<td>\(sum.identified ? TwinParameter.decimal(sum.low, digits: 3) + " – " + TwinParameter.decimal(sum.high, digits: 3) + " s" : "—")</td>"
        + "<td></td><td>\(sum.identified ? "yes, as a sum" : "no: " + Self.escaped(sum.note))</td><td></td></tr>\n"
    }
    if let retry = run.measurement.retryAfter, let path = run.measurement.retryAfterPath {
      body += "<tr><td><code>\(Self.escaped(path))</code></td><td>\(TwinParameter.decimal(retry.median, digits: 3)) s</td>"
        + "<td></td><td></td><td>measured from \(retry.count) \(Self.escaped(retry.from))</td><td></td></tr>\n"
    }
    body += "</table>\n<p class=\"note\">Each strip: the prior's range (grey line), the posterior's particles (dots, by weight), "
      + "its 90 % interval (bar).</p>\n"
    for misfit in run.estimate.misfits {
      body += "<p class=\"misfit\"><b>Misfit:</b> \(Self.escaped(misfit.sentence))</p>\n"
    }
    if !run.assumptions.isEmpty {
      body += "<h2>The twin's assumptions: identified by the log, or left assumed</h2>\n<ul>\n"
      for line in run.assumptions { body += "<li>\(Self.escaped(line.trimmingCharacters(in: .whitespaces)))</li>\n" }
      body += "</ul>\n"
    }
    for part in ["fit", "holdout"] where run.estimate.summaries.contains(where: { $0.part == part }) {
      body += "<h2>\(part == "fit" ? "The part fitted" : "The part held back"): observed (red) and the twin's worlds (grey, 90 % band)</h2>\n"
      for summary in run.estimate.summaries where summary.part == part && (summary.observed != nil || !summary.twinValues.isEmpty) {
        body += strip(summary)
      }
    }
    return """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
      <title>SyncSim twin fit</title>
      <style>
      body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px auto;max-width:960px;color:#222;background:#fff}
      table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}
      .meta{color:#555;font-size:13px}.note{font-style:italic;color:#666}.misfit{color:#a40000}svg{display:block;margin:2px 0 10px}
      text{font-size:11px;fill:#333}
      @media (prefers-color-scheme: dark){body{color:#e6e6e6;background:#121212}th,td{border-color:#444}text{fill:#ddd}}
      </style>
      </head>
      <body>
      \(body)<p class="meta">Made by <code>syncsim fit</code>; no script, nothing fetched.</p>
      </body>
      </html>

      """
  }

  /// One summary: the twin's values as ticks, their 90 % band, the observed value as a red line.
  func strip(_ summary: TwinEstimate.Summary) -> String {
    let share = LogSummaries.definitions[LogSummaries.index(summary.name)].isShare
    let values = summary.twinValues + (summary.observed.map { [$0] } ?? [])
    guard !values.isEmpty else { return "" }
    func position(_ value: Double) -> Double { share ? value : DeterministicLog.log10(max(value, 1e-3)) }
    var low = share ? 0 : values.map(position).min()!
    var high = share ? 1 : values.map(position).max()!
    if high - low < 1e-9 {
      low -= 0.5
      high += 0.5
    }
    let width = 600.0
    let left = 200.0
    func x(_ value: Double) -> Double { left + (position(value) - low) / (high - low) * width }
    var svg = "<svg width=\"\(Int(left + width + 20))\" height=\"34\" role=\"img\">"
    svg += "<text x=\"0\" y=\"16\">\(Self.escaped(summary.name))</text>"
    if let lo = summary.twinLow, let hi = summary.twinHigh {
      svg += "<rect x=\"\(Int(x(lo)))\" y=\"4\" width=\"\(max(1, Int(x(hi) - x(lo))))\" height=\"16\" fill=\"#ccc\" opacity=\"0.6\"/>"
    }
    for value in summary.twinValues {
      svg += "<line x1=\"\(Int(x(value)))\" x2=\"\(Int(x(value)))\" y1=\"6\" y2=\"18\" stroke=\"#777\" stroke-width=\"1\"/>"
    }
    if let observed = summary.observed {
      svg += "<line x1=\"\(Int(x(observed)))\" x2=\"\(Int(x(observed)))\" y1=\"0\" y2=\"24\" stroke=\"#d00\" stroke-width=\"3\"/>"
    }
    let lowText = share ? "0" : DurationText.display(seconds: pow10(low))
    let highText = share ? "1" : DurationText.display(seconds: pow10(high))
    svg += "<text x=\"\(Int(left))\" y=\"32\">\(lowText)</text><text x=\"\(Int(left + width - 40))\" y=\"32\">\(highText)</text>"
    let observedText = summary.observed.map { share ? TwinParameter.decimal($0, digits: 3) : DurationText.display(seconds: $0) } ?? "none"
    svg += "<text x=\"0\" y=\"30\">observed \(observedText) (n \(summary.count))</text></svg>\n"
    return svg
  }

  func pow10(_ exponent: Double) -> Double { DeterministicLog.exp10(exponent) }

}

/// Base-10 logarithms for the page's axes.
enum DeterministicLog {
  static func log10(_ value: Double) -> Double { DeterministicMath.log(value) / DeterministicMath.log(10) }
  static func exp10(_ value: Double) -> Double { DeterministicMath.exp(value * DeterministicMath.log(10)) }
}
