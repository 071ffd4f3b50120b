import Foundation
import SimExperiments
import SimMetrics
import SimScenario
import SimTestSupport
import Testing

@testable import SimCLI

/// Results a researcher can trust (issue 20): the resolved scenario and its hash, a fingerprint
/// that sees every change of state, intervals that stay in range, censored metrics said as such,
/// and a false-discovery rate that holds over many same-setup comparisons.
@Suite struct ProvenanceTests {
  static let quickstart = packageRoot + "/Scenarios/quickstart.json"

  static func decode(_ text: String) throws -> Scenario {
    try ScenarioDecoder.decode(Array(text.utf8), file: "test.json").0
  }

  static func hash(_ text: String) throws -> String {
    ScenarioResolver.hash(ScenarioResolver.resolve(try decode(text)))
  }

  @Test func theHashIgnoresWhitespaceKeyOrderDescriptionAndSeedButNotAValue() throws {
    let base = """
      {"version": 1, "name": "h", "description": "one", "seed": 3, "duration": "1h",
       "devices": [{"name": "a"}, {"name": "b"}], "workloads": [{"devices": "all", "editsPerHour": 6}]}
      """
    let reordered = """
      {
        "workloads": [ { "editsPerHour": 6.0, "devices": "all" } ],
        "devices": [ {"name": "a"}, {"name": "b", "count": 1} ],
        "duration": "1h", "seed": 99, "name": "h", "version": 1,
        "description": "another text entirely"
      }
      """
    // Writing a default out (count 1, accounts 1) is the same world as leaving it out.
    let explicit = base.replacingOccurrences(of: #""seed": 3,"#, with: #""seed": 3, "accounts": 1,"#)
    #expect(try Self.hash(base) == Self.hash(reordered))
    #expect(try Self.hash(base) == Self.hash(explicit))
    let changed = base.replacingOccurrences(of: #""editsPerHour": 6"#, with: #""editsPerHour": 7"#)
    #expect(try Self.hash(base) != Self.hash(changed))
    let renamed = base.replacingOccurrences(of: #""name": "a""#, with: #""name": "c""#)
    #expect(try Self.hash(base) != Self.hash(renamed))
  }

  @Test func resolvedJSONRunsTheSameWorldAndEachSweepPointHashesAsItsOwnRun() throws {
    try withTemporaryDirectory { directory in
      #expect(syncsim(["run", Self.quickstart, "--duration", "2h", "--out", directory + "/a"]).code == 0)
      let resolvedText = try String(contentsOfFile: directory + "/a/resolved.json", encoding: .utf8)
      let resolved = try #require(JSONSerialization.jsonObject(with: Data(resolvedText.utf8)) as? [String: Any])
      #expect(resolved["seed"] as? Int == 1)
      #expect(resolved["syncsimVersion"] as? String == SyncSimCommand.version)
      let scenario = try #require(resolved["scenario"] as? [String: Any])
      // Every default is written out: the cloud section, the polling interval, a device's power.
      let cloud = try #require(scenario["cloud"] as? [String: Any])
      #expect(cloud["recordsPerOperation"] as? Int == 400)
      #expect(scenario["duration"] as? String == "2h")
      let devices = try #require(scenario["devices"] as? [[String: Any]])
      #expect((devices[0]["power"] as? [String: Any])?["battery"] as? Int == 80)
      let file = directory + "/resolved-scenario.json"
      try JSONSerialization.data(withJSONObject: scenario, options: [.sortedKeys]).write(to: URL(fileURLWithPath: file))
      #expect(syncsim(["run", file, "--out", directory + "/b"]).code == 0)
      let a = try summaryRow(directory + "/a"), b = try summaryRow(directory + "/b")
      #expect(a["fingerprint"] == b["fingerprint"])
      #expect(a["scenarioHash"] == b["scenarioHash"])
      #expect(a["scenarioHash"] == resolved["scenarioHash"] as? String)

      // A sweep point: every replication carries the hash of `run points/…/scenario.json`.
      let sweep = ["sweep", Self.quickstart, "--set", "push.dropProbability=0.5", "--set", "duration=2h"]
      #expect(syncsim(sweep + ["--seeds", "4..5", "--out", directory + "/s"]).code == 0)
      let point = directory + "/s/points/point-0000/scenario.json"
      // Exit 1: quickstart's latency expectations fail with half the pushes dropped.
      #expect(syncsim(["run", point, "--seed", "5", "--out", directory + "/p"]).code == 1)
      let table = try #require(CSVTable.parse(try String(contentsOfFile: directory + "/s/sweep.csv", encoding: .utf8)))
      let hashColumn = try #require(table.columns.firstIndex(of: "scenarioHash"))
      let fingerprintColumn = try #require(table.columns.firstIndex(of: "fingerprint"))
      #expect(Set(table.rows.map { $0[hashColumn] }) == [try summaryRow(directory + "/p")["scenarioHash"]!])
      #expect(
        table.rows.contains {
          $0[3] == "5" && $0[fingerprintColumn] == (try? summaryRow(directory + "/p"))?["fingerprint"]
        })
      let pointResolved = try String(contentsOfFile: directory + "/s/points/point-0000/resolved.json", encoding: .utf8)
      #expect(pointResolved.contains("\"seeds\": [4, 5]"))
      let summary = try String(contentsOfFile: directory + "/s/sweep-summary.csv", encoding: .utf8)
      #expect(
        summary.hasPrefix(
          "scenario,point,push.dropProbability,duration,metric,runs,n,mean,sd,ci95Low,ci95High,interval,scenarioHash,syncsimVersion\n"
        ))
    }
  }

  func summaryRow(_ directory: String) throws -> [String: String] {
    let table = try #require(CSVTable.parse(try String(contentsOfFile: directory + "/summary.csv", encoding: .utf8)))
    return Dictionary(uniqueKeysWithValues: zip(table.columns, table.rows[0]))
  }

  @Test func deduplicationAndItsAbsenceNoLongerShareAFingerprint() throws {
    try withTemporaryDirectory { directory in
      for name in ["duplicates-dedup", "duplicates-no-dedup"] {
        _ = syncsim(["run", packageRoot + "/Scenarios/\(name).json", "--out", directory + "/" + name])
      }
      let dedup = try summaryRow(directory + "/duplicates-dedup")
      let noDedup = try summaryRow(directory + "/duplicates-no-dedup")
      #expect(dedup["duplicates"] == "0" && noDedup["duplicates"] == "2")
      #expect(dedup["fingerprint"] != noDedup["fingerprint"])
    }
  }

  /// A tidy table of one point: `values` per metric, one per run (nil: no value in that run).
  func table(_ values: [String: [Double?]]) -> CSVTable {
    var table = CSVTable(columns: SweepOutput.columns(factors: []))
    let runs = values.values.first!.count
    for run in 0..<runs {
      for metric in RunSummary.metricNames where values[metric] != nil {
        let value = values[metric]![run].map { CSVTable.number($0) } ?? ""
        table.append(["s", "0", String(run), String(run + 1), metric, value, "f", "h", "v"])
      }
    }
    return table
  }

  @Test func summaryIntervalsStayInRangeAndCensoredMetricsCountTheirRuns() throws {
    let summary = SweepOutput.summary(
      of: table([
        "converged": [1, 1, 1, 0, 0],
        "convergenceTime": [10, 12, 400, nil, nil],
        "latency.p50": [0, 0, 0, 0, 30],
      ]), factors: [])
    let rows = Dictionary(
      uniqueKeysWithValues: summary.rows.map { ($0[2], Dictionary(uniqueKeysWithValues: zip(summary.columns, $0))) })
    let converged = try #require(rows["converged"])
    #expect(converged["interval"] == "wilson")
    let low = try #require(Double(converged["ci95Low"]!)), high = try #require(Double(converged["ci95High"]!))
    // Wilson for 3 of 5: [0.2307, 0.8824]; a t-interval would reach below 0 with 0s and 1s.
    #expect(abs(low - 0.2307) < 1e-3 && abs(high - 0.8824) < 1e-3)
    let time = try #require(rows["convergenceTime"])
    #expect(time["runs"] == "5" && time["n"] == "3")
    #expect(Double(time["ci95Low"]!)! >= 0, "a time is never negative: \(time)")
    #expect(Double(rows["latency.p50"]!["ci95Low"]!)! == 0)
    #expect(converged["scenarioHash"] == "h" && converged["syncsimVersion"] == "v")
  }

  @Test func compareSaysWhenAMeanIsOverTheRunsThatConvergedOnly() {
    var a = CompareCommand.OrderedValues(), b = CompareCommand.OrderedValues()
    let key = CompareCommand.Key(point: "0", metric: "convergenceTime", order: RunSummary.sortKey("convergenceTime"))
    for value in [10.0, 11, nil, 12, nil] { a.append(key, value) }
    for value in [10.0, 12, 11, 13, 12] { b.append(key, value) }
    let test = CompareCommand.tests(a, b)[0]
    #expect(test.verdict.text.hasSuffix("(converged in A 3/5, B all; means over those runs)"), "\(test.verdict.text)")
  }

  /// 50 comparisons of the same setup (seeds split at random into two halves of 10) must not
  /// find significant differences more often than the family-wise error rate (5 %) allows; raw
  /// p-values, uncorrected across ~250 metrics, would find some in nearly every split.
  @Test func sameSetupComparisonsKeepTheFalseDiscoveryRateOverFiftySplits() throws {
    try withTemporaryDirectory { directory in
      let args = ["sweep", Self.quickstart, "--seeds", "1..40", "--set", "duration=3h", "--out", directory]
      #expect(syncsim(args).code == 0)
      let table = try #require(CSVTable.parse(try String(contentsOfFile: directory + "/sweep.csv", encoding: .utf8)))
      let metricColumn = try #require(table.columns.firstIndex(of: "metric"))
      var bySeed: [[String]] = Array(repeating: [], count: 41)
      for row in table.rows { bySeed[Int(row[3])!].append(row.joined(separator: "\u{1F}")) }
      var generator = SplitMix(state: 2026)
      var splitsWithDiscovery = 0, splitsWithRawDiscovery = 0, tests = 0
      for _ in 0..<50 {
        var seeds = Array(1...40)
        for i in stride(from: seeds.count - 1, to: 0, by: -1) { seeds.swapAt(i, Int(generator.next() % UInt64(i + 1))) }
        var a = CompareCommand.OrderedValues(), b = CompareCommand.OrderedValues()
        for (position, seed) in seeds.prefix(20).enumerated() {
          for line in bySeed[seed] {
            let row = line.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            let key = CompareCommand.Key(point: "0", metric: row[metricColumn], order: RunSummary.sortKey(row[metricColumn]))
            let value = Double(row[metricColumn + 1])
            if position < 10 { a.append(key, value) } else { b.append(key, value) }
          }
        }
        let results = CompareCommand.tests(a, b)
        tests = results.filter { $0.raw != nil }.count
        if results.contains(where: { ["better", "worse", "changed"].contains($0.verdict.text) }) {
          splitsWithDiscovery += 1
        }
        if results.contains(where: { ($0.raw ?? 1) < 0.05 }) { splitsWithRawDiscovery += 1 }
      }
      print(
        "same-setup splits: \(splitsWithDiscovery)/50 with a Holm-significant verdict, \(splitsWithRawDiscovery)/50 with raw p < 0.05, \(tests) tests each"
      )
      #expect(tests > 50, "metrics tested per split: \(tests)")
      // Holm bounds the chance of any false verdict at 5 % per split: at most 2.5 of 50 expected.
      #expect(splitsWithDiscovery <= 5, "splits with a false verdict: \(splitsWithDiscovery) of 50")
      #expect(
        splitsWithRawDiscovery >= 20, "uncorrected, false discoveries are common: \(splitsWithRawDiscovery) of 50")
    }
  }

  struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }
}
