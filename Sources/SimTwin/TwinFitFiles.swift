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

  var fit: CSVTable {
    var table = CSVTable(
      columns: ["parameter", "unit", "priorLow", "priorHigh", "estimate", "low", "high", "identified", "note"])
    for p in run.estimate.parameters {
      table.append([
        p.parameter.path, p.parameter.unit, Self.number(p.parameter.low), Self.number(p.parameter.high),
        Self.number(p.estimate), Self.number(p.low), Self.number(p.high), p.identified ? "1" : "0", p.note,
      ])
    }
    return table
  }

  var summaries: CSVTable {
    var table = CSVTable(
      columns: ["summary", "part", "observed", "count", "twinLow", "twinMedian", "twinHigh", "covered", "medianError"])
    for s in run.estimate.summaries {
      table.append([
        s.name, s.part, Self.number(s.observed), String(s.count), Self.number(s.twinLow), Self.number(s.twinMedian),
        Self.number(s.twinHigh), s.covered.map { $0 ? "1" : "0" } ?? "", Self.number(s.medianError),
      ])
    }
    return table
  }

  var generations: CSVTable {
    var table = CSVTable(columns: ["generation", "epsilon", "proposed", "accepted"])
    for (index, g) in run.posterior.generations.enumerated() {
      table.append([String(index), Self.number(g.epsilon), String(g.proposed), String(g.accepted)])
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
