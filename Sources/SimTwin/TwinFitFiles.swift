import SimKernel
import SimMetrics

/// A fit's files: `twin.json`, `fit.csv` (each parameter), `summaries.csv` (each summary,
/// observed and the twin's, for the part fitted and the part held back), `generations.csv`,
/// `posterior.csv` and `report.html`.
public struct TwinFitFiles {
  public let run: TwinFitRun

  public init(_ run: TwinFitRun) { self.run = run }

  public var files: [(name: String, text: String)] {
    [
      ("twin.json", run.twin.serialized() + "\n"), ("fit.csv", fit.text), ("summaries.csv", summaries.text),
      ("generations.csv", generations.text), ("posterior.csv", posterior.text),
      ("report.html", TwinFitPage(run).html()),
    ]
  }

  static func number(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "" }
    return TwinParameter.decimal(value, digits: 6)
  }

  /// Each parameter: its prior, and its estimate and 90 % interval only where the log identified
  /// it (twin.json keeps the base's value of the others, and says so); then the sums the log sees
  /// of parameters it cannot tell apart, and what the log measured directly.
  var fit: CSVTable {
    var table = CSVTable(
      columns: ["parameter", "kind", "unit", "priorLow", "priorHigh", "estimate", "low", "high", "identified", "note"])
    for p in run.estimate.parameters {
      table.append([
        p.parameter.path, "fitted", p.parameter.unit, Self.number(p.parameter.low), Self.number(p.parameter.high),
        p.identified ? Self.number(p.estimate) : "", p.identified ? Self.number(p.low) : "",
        p.identified ? Self.number(p.high) : "", p.identified ? "1" : "0", p.note,
      ])
    }
    for sum in run.estimate.sums {
      table.append([
        sum.name, "sum", "s", "", "", sum.identified ? Self.number(sum.estimate) : "", sum.identified ? Self.number(sum.low) : "",
        sum.identified ? Self.number(sum.high) : "", sum.identified ? "1" : "0", sum.note,
      ])
    }
    if let retry = run.measurement.retryAfter, let path = run.measurement.retryAfterPath {
      table.append([
        path, "measured", "s", "", "", Self.number(retry.median), "", "", "1",
        "measured from \(retry.count) \(retry.from); lognormal spread \(Self.number(retry.sigma))",
      ])
    }
    return table
  }

  var summaries: CSVTable {
    var table = CSVTable(
      columns: [
        "summary", "part", "observed", "count", "twinLow", "twinMedian", "twinHigh", "covered", "medianError", "misfit",
        "meaning",
      ])
    let misfits = Set(run.estimate.misfits.map(\.summary))  // membership only
    for s in run.estimate.summaries {
      let meaning = LogSummaries.definitions[LogSummaries.index(s.name)].meaning
      table.append([
        s.name, s.part, Self.number(s.observed), String(s.count), Self.number(s.twinLow), Self.number(s.twinMedian),
        Self.number(s.twinHigh), s.covered.map { $0 ? "1" : "0" } ?? "", Self.number(s.medianError),
        s.part == "fit" && misfits.contains(s.name) ? "1" : "0", meaning,
      ])
    }
    return table
  }

  var generations: CSVTable {
    var table = CSVTable(columns: ["generation", "epsilon", "proposed", "accepted", "stoppedEarly"])
    for (index, g) in run.posterior.generations.enumerated() {
      table.append([String(index), Self.number(g.epsilon), String(g.proposed), String(g.accepted), String(g.stopped)])
    }
    return table
  }

  var posterior: CSVTable {
    var table = CSVTable(columns: ["particle", "weight", "distance"] + run.fit.parameters.map(\.path))
    for (index, particle) in run.posterior.particles.enumerated() {
      table.append(
        [String(index), Self.number(particle.weight), Self.number(particle.distance)]
          + run.fit.parameters.enumerated().map { Self.number($1.value(atUnit: particle.units[$0])) })
    }
    return table
  }
}
