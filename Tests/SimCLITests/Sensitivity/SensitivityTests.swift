import Foundation
import SimExperiments
import SimKernel
import SimModel
import SimScenario
import SimTestSupport
import Testing

/// The screening finds what is planted in it, and its design is Morris's.
@Suite struct SensitivityTests {
  /// The quickstart with its parameters, and `scheduler.exportStartDelay` (every row waits for it
  /// once, in its export) given a planted linear range of 1 s to 61 s: the screening must rank it
  /// first for the median latency, with μ* near the 60 s the range adds to every row.
  static func planted(method: SensitivityDesign.Method) throws -> (SensitivityTable, [SensitivityFactor]) {
    let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: packageRoot + "/Scenarios/quickstart.json")))
    let (scenario, _) = try ScenarioDecoder.decode(bytes, file: "quickstart.json")
    let document = try JSONParser.parse(bytes)
    var parameters = ParameterSet.standard
    let index = try #require(parameters.world.firstIndex { $0.path == "scheduler.exportStartDelay" })
    parameters.world[index].range = PlausibleRange(.numbers(low: 1, high: 61, logarithmic: false), reason: "planted")
    let selection = SensitivitySelection(.all, scenario: scenario, document: document, parameters: parameters)
    let design = SensitivityDesign(method: method, factorCount: selection.factors.count, trajectories: 6, seed: 3)
    let runner = SensitivityRunner(
      document: document, file: "quickstart.json", factors: selection.factors, design: design, seeds: [1],
      metrics: ["latency.p50", "latency.mean"])
    let scenarios = try runner.resolveAll().get()
    let values = runner.execute(scenarios, jobs: 2)
    return (SensitivityTable(factors: selection.factors, design: design, metrics: runner.metrics, values: values), selection.factors)
  }

  /// Measured (6 walks, seed 1): the median's μ* within 1.5 s of 60 s (every row waits once more); the mean's
  /// 45.8 s, the next parameter's 32.3 s: the mean mixes the delay with what it does with the
  /// others (which rows a dropped push leaves for the next export, how activities queue in their
  /// group), and Morris's σ shows it.
  @Test func morrisRanksThePlantedDelayFirstWithItsSize() throws {
    let (table, factors) = try Self.planted(method: .morris)
    for metric in table.metrics {
      let first = try #require(metric.rows.first)
      #expect(factors[first.factor].name == "scheduler.exportStartDelay")
      #expect(first.rank == 1 && first.effects == 6)
      let muStar = try #require(first.muStar)
      let second = try #require(metric.rows[1].muStar)
      if metric.name == "latency.p50" {
        #expect(second < muStar / 10, "the next μ* \(second) s")
        #expect(abs(muStar - 60) < 2.5, "μ* \(muStar) s, planted 60 s")
        #expect(try #require(first.sigma) < 3)
      } else {
        #expect(second < muStar, "the next μ* \(second) s")
        #expect(muStar > 40 && muStar < 80, "μ* \(muStar) s, planted 60 s")
      }
    }
  }

  @Test func oneAtATimeGivesTheRangeEnds() throws {
    let (table, factors) = try Self.planted(method: .oat)
    let metric = try #require(table.metrics.first { $0.name == "latency.mean" })
    let first = try #require(metric.rows.first)
    #expect(factors[first.factor].name == "scheduler.exportStartDelay")
    let (low, high) = (try #require(first.atLow), try #require(first.atHigh))
    #expect(abs((high - low) - 60) < 6)
    #expect(first.muStar == abs(high - low))
    #expect(first.sigma == nil)
  }

  /// Morris's walks: k + 1 points each, every step one factor by ±2/3 on the 4-level grid, each
  /// factor once per walk; the same seed gives the same design.
  @Test func morrisWalksMoveOneFactorAtATime() {
    let design = SensitivityDesign(method: .morris, factorCount: 5, trajectories: 7, seed: 11)
    #expect(design.points.count == 1 + 2 * 5 + 7 * 6)
    #expect(design.steps.count == 7 * 5)
    for step in design.steps {
      let (from, to) = (design.points[step.from], design.points[step.to])
      let changed = (0..<5).filter { from[$0] != to[$0] }
      #expect(changed == [step.factor])
      #expect(abs(to[step.factor]! - from[step.factor]! - step.delta) < 1e-12)
      #expect(abs(abs(step.delta) - 2.0 / 3) < 1e-12)
      for level in to.compactMap({ $0 }) { #expect([0, 1, 2, 3].contains((level * 3).rounded())) }
    }
    for walk in 0..<7 {
      let factors = design.steps[(walk * 5)..<(walk * 5 + 5)].map(\.factor).sorted()
      #expect(factors == [0, 1, 2, 3, 4])
    }
    let again = SensitivityDesign(method: .morris, factorCount: 5, trajectories: 7, seed: 11)
    #expect(again.points == design.points)
    let other = SensitivityDesign(method: .morris, factorCount: 5, trajectories: 7, seed: 12)
    #expect(other.points != design.points)
    #expect(SensitivityDesign(method: .oat, factorCount: 5, trajectories: 7, seed: 11).points.count == 11)
  }

  /// The rule's ranges: an assumed duration a third to three times, a scale for a distribution,
  /// a bool both ways, none for a key off by default; a declared spread replaces the rule.
  @Test func plausibleRangesFollowTheRule() throws {
    let world = ParameterTable.world
    func range(_ path: String) -> PlausibleRange? { world.first { $0.path == path }?.plausibleRange }
    #expect(range("cloud.networkRetryBackoffCap")?.span == .numbers(low: 100, high: 900, logarithmic: true))
    #expect(range("push.fanoutLatency")?.span == .scale(low: 1.0 / 3, high: 3))
    #expect(range("cloud.poisonRecordProbability") == nil)
    #expect(range("cloud.recordsPerOperation") == nil)  // sourced, no spread declared
    #expect(range("cloud.throttle.retryAfterHolds")?.span == .choices(["device", "container"]))
    let battery = try #require(ParameterTable.device.first { $0.path == "power.battery" }?.plausibleRange)
    #expect(battery.span == .numbers(low: 30, high: 100, logarithmic: false))
    let visibility = ParameterTable.device.first { $0.path == "visibilityRequiresForeground" }?.plausibleRange
    #expect(visibility?.span == .choices(["true", "false"]))
  }

  /// A scaled distribution written as a scenario writes it reads back to the same distribution.
  @Test func scaledDistributionsRoundTrip() throws {
    let kinds: [Distribution] = [
      .constant(2), .uniform(lower: 1, upper: 3), .exponential(mean: 4), .normal(mean: 5, standardDeviation: 1),
      .lognormal(median: 2, p99: 60), .choice(values: [1, 10], weights: [3, 1]),
    ]
    for distribution in kinds {
      let scaled = distribution.scaled(by: 3)
      #expect(abs(scaled.mean - 3 * distribution.mean) < 1e-9 * max(1, distribution.mean))
      let text = #"{"version": 1, "name": "d", "devices": [{"name": "a"}], "push": {"fanoutLatency": \#(scaled.scenarioJSON)}}"#
      let (scenario, _) = try ScenarioDecoder.decode(Array(text.utf8), file: "d.json")
      #expect(scenario.spec.push.fanoutLatency == scaled, "\(scaled.scenarioJSON)")
    }
  }
}
