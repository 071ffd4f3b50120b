import Foundation
import SimCLI
import SimMetrics
import SimTestSupport
import Testing

@Suite struct CheckCommandTests {
  /// Quickstart copied into `directory` and its results recorded there by `check --update`: the
  /// copy's path, its text (to edit) and the baseline folder.
  func recordQuickstart(in directory: String) throws -> (scenario: String, original: String, baseline: String) {
    let scenario = directory + "/quick.json"
    let original = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
    try original.write(toFile: scenario, atomically: true, encoding: .utf8)
    let baseline = directory + "/baseline"
    let update = syncsim("check", scenario, "--baseline", baseline, "--update")
    #expect(update.code == 0)
    return (scenario, original, baseline)
  }

  @Test func checkPassesOnCommittedResultsAndNamesWhatChanged() throws {
    try withTemporaryDirectory { directory in
      let (scenario, original, baseline) = try recordQuickstart(in: directory)
      let unchanged = syncsim("check", scenario, "--baseline", baseline, "--junit", directory + "/junit.xml")
      #expect(unchanged.code == 0)
      #expect(unchanged.out.contains("ok   quickstart (unchanged, fingerprint"))
      #expect(unchanged.out.hasSuffix("1 passed, 0 failed\n"))
      // A model or scenario change shows up as a changed fingerprint and the metrics that moved.
      try original.replacingOccurrences(of: "\"editsPerHour\": 10", with: "\"editsPerHour\": 12")
        .write(toFile: scenario, atomically: true, encoding: .utf8)
      let changed = syncsim("check", scenario, "--baseline", baseline, "--junit", directory + "/junit.xml")
      #expect(changed.code == 1)
      #expect(changed.out.contains("FAIL quickstart"))
      #expect(changed.out.contains("behaviour changed: "))
      #expect(changed.out.contains("the scenario file changed (scenarioHash "))
      #expect(changed.out.contains("writes: 118 → "))
      #expect(changed.out.contains("reproduce: swift run -c release syncsim run \(scenario) --seed 1"))
      #expect(changed.out.hasSuffix("0 passed, 1 failed\n"))
      let xml = try String(contentsOfFile: directory + "/junit.xml", encoding: .utf8)
      #expect(xml.contains("<testsuite name=\"syncsim check\" tests=\"1\" failures=\"1\" errors=\"0\" time=\""))
      #expect(xml.contains("<failure message=\"behaviour changed: "))
    }
  }

  /// Issue 58, item 3: the headline names the move a reviewer reads first. Quickstart with a
  /// third of pushes dropped: p95 32.4 s → 805.3 s (+2,386 %) heads it, not
  /// `latency.isLowerBound: 0 → 1` (from 0) nor `pushes.dropped: 0 → 29`.
  @Test func theHeadlineRanksExpectedAndLatencyMetricsAboveMovesFromZero() throws {
    try withTemporaryDirectory { directory in
      let (scenario, original, baseline) = try recordQuickstart(in: directory)
      try original.replacingOccurrences(of: "\"duration\": \"6h\",", with: "\"duration\": \"6h\", \"push\": {\"dropProbability\": 0.3},")
        .write(toFile: scenario, atomically: true, encoding: .utf8)
      let changed = syncsim("check", scenario, "--baseline", baseline)
      #expect(changed.code == 1)
      #expect(changed.out.contains("moved, most latency.p95: 32.397 s → 805.300 s (+2385.7 %)"), "\(changed.out)")
      // The failed expectation's metric first; then the expected and headline ones, moves from 0
      // first (2 lost updates); then the rest.
      let lines = changed.out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      let order = ["latency.p95:", "lostUpdates:", "latency.p99:", "latency.p50:", "latency.isLowerBound:"].map { name in
        lines.firstIndex { $0.hasPrefix(name) } ?? -1
      }
      #expect(order.allSatisfy { $0 >= 0 } && order == order.sorted(), "\(order) in \(changed.out)")
    }
  }

  /// Metric by metric: a metric on one side only is information; the same trajectory with a
  /// different value says the computation changed; a re-hashed scenario tells edits apart.
  @Test func checkReportsOneSidedMetricsAsInformationAndNamesTheKindOfChange() throws {
    try withTemporaryDirectory { directory in
      let scenario = packageRoot + "/Scenarios/quickstart.json"
      let baseline = directory + "/baseline"
      #expect(syncsim("check", scenario, "--baseline", baseline, "--update").code == 0)
      let path = baseline + "/quickstart/summary.csv"
      let original = try String(contentsOfFile: path, encoding: .utf8)
      let parsed = try #require(CSVTable.parse(original))
      // An older format with a column for a policy not in the run's set: information only.
      let extra = ["blocked.thermal.count", "blocked.thermal.total", "blocked.thermal.longest"]
      var table = CSVTable(columns: parsed.columns + extra)
      table.append(parsed.rows[0] + ["0", "0.000000000", "0.000000000"])
      try table.text.write(toFile: path, atomically: true, encoding: .utf8)
      let older = syncsim("check", scenario, "--baseline", baseline, "--lenient")
      #expect(older.code == 0)
      #expect(older.out.contains("same behaviour, fingerprint "))
      #expect(older.out.contains("differ in format only (passed with --lenient)"))
      #expect(
        older.out.contains(
          "information: metrics only in the committed results: blocked.thermal.count, blocked.thermal.total, "
            + "blocked.thermal.longest"))
      // The same trajectory giving another value: the computation changed, not the model.
      let column = try #require(parsed.columns.firstIndex(of: "latency.p50"))
      var row = parsed.rows[0]
      row[column] = "5.000000000"
      var moved = CSVTable(columns: parsed.columns)
      moved.append(row)
      try moved.text.write(toFile: path, atomically: true, encoding: .utf8)
      let computed = syncsim("check", scenario, "--baseline", baseline)
      #expect(computed.code == 1)
      #expect(
        computed.out.contains(
          "gives other metrics: how a metric is computed changed, most latency.p50: 5.000 s → 4.881 s (-2.4 %)"))
    }
  }

  /// Issue 72, item 1: a committed file that differs only in format (a key order, a new
  /// default written out) is a stale result: `check` fails by default, naming the file and the
  /// command that records it; `--lenient` passes it; recording makes it pass.
  @Test func aResultStaleInFormatOnlyFailsWithTheCommandThatRecordsIt() throws {
    try withTemporaryDirectory { directory in
      let scenario = packageRoot + "/Scenarios/quickstart.json"
      let baseline = directory + "/baseline"
      #expect(syncsim("check", scenario, "--baseline", baseline, "--update").code == 0)
      let path = baseline + "/quickstart/resolved.json"
      let original = try String(contentsOfFile: path, encoding: .utf8)
      // The same members in another order: what a schema's new key order did to 54 results.
      let lines = original.components(separatedBy: "\n")
      let first = try #require(lines.firstIndex { $0.contains("\"savePolicy\": \"immediate\",") })
      var reordered = lines
      reordered.swapAt(first, first + 1)
      try reordered.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
      let stale = syncsim("check", scenario, "--baseline", baseline)
      #expect(stale.code == 1, "\(stale.out)")
      #expect(stale.out.contains("FAIL quickstart"))
      #expect(
        stale.out.contains(
          "the committed results are stale: same behaviour, fingerprint b874a594d03e1bcf; resolved.json differ in "
            + "format only; record them with: syncsim check --update --baseline \(baseline) quickstart"),
        "\(stale.out)")
      #expect(syncsim("check", scenario, "--baseline", baseline, "--lenient").code == 0)
      #expect(syncsim("check", scenario, "--baseline", baseline, "--update").code == 0)
      let recorded = syncsim("check", scenario, "--baseline", baseline)
      #expect(recorded.code == 0)
      #expect(recorded.out.contains("ok   quickstart (unchanged, fingerprint b874a594d03e1bcf"))
    }
  }

  @Test func aMissingBaselineFailsWithTheCommandThatCreatesIt() throws {
    withTemporaryDirectory { directory in
      let result = syncsim("check", packageRoot + "/Scenarios/quickstart.json", "--baseline", directory)
      #expect(result.code == 1)
      #expect(result.out.contains("no committed results"))
    }
  }
}

/// Issue 38, item 5: a failing `check` leads with what moved, by how much, in units, and says
/// whether the scenario or the model changed; a misspelt name is a usage error with a suggestion.
@Suite struct CheckReviewTests {
  @Test func aTwentyPercentLatencyChangeLeadsWithTheMetricItsPercentAndUnit() throws {
    try withTemporaryDirectory { directory in
      let baseline = directory + "/Results"
      #expect(
        syncsim(["check", packageRoot + "/Scenarios/quickstart.json", "--baseline", baseline, "--update"]).code == 0)
      let path = baseline + "/quickstart/summary.csv"
      var table = try #require(CSVTable.parse(try String(contentsOfFile: path, encoding: .utf8)))
      let p50 = try #require(table.columns.firstIndex(of: "latency.p50"))
      let fingerprint = try #require(table.columns.firstIndex(of: "fingerprint"))
      var row = table.rows[0]
      let got = try #require(Double(row[p50]))
      row[p50] = CSVTable.value(got / 1.2, isDuration: true)
      row[fingerprint] = "0000000000000000"
      var edited = CSVTable(columns: table.columns)
      edited.append(row)
      table = edited
      try table.text.write(toFile: path, atomically: true, encoding: .utf8)
      let result = syncsim(["check", packageRoot + "/Scenarios/quickstart.json", "--baseline", baseline])
      #expect(result.code == 1)
      let headline = try #require(result.out.split(separator: "\n").first { $0.contains("behaviour changed") })
      #expect(headline.contains("1 metric moved, most latency.p50: "), "\(headline)")
      #expect(headline.contains(" s → ") && headline.contains("(+20.0 %)"), "\(headline)")
      #expect(headline.contains("the scenario is the same, so the model changed"))
      let misspelt = syncsim(["check", "quickstrat"])
      #expect(misspelt.code == 64)
      #expect(misspelt.err.contains("(did you mean quickstart?)"), "\(misspelt.err)")
    }
  }
}

/// Issue 38, item 5: `check --markdown` writes a summary a CI job page renders.
@Suite struct CheckMarkdownTests {
  @Test func theMarkdownSummaryHasATableAndEachFailuresLines() throws {
    try withTemporaryDirectory { directory in
      let baseline = directory + "/Results"
      let scenario = packageRoot + "/Scenarios/quickstart.json"
      #expect(syncsim(["check", scenario, "--baseline", baseline, "--update"]).code == 0)
      let path = baseline + "/quickstart/summary.csv"
      let text = try String(contentsOfFile: path, encoding: .utf8)
      let table = try #require(CSVTable.parse(text))
      var row = table.rows[0]
      row[try #require(table.columns.firstIndex(of: "fingerprint"))] = "0000000000000000"
      row[try #require(table.columns.firstIndex(of: "latency.p50"))] = "1.000000000"
      var edited = CSVTable(columns: table.columns)
      edited.append(row)
      try edited.text.write(toFile: path, atomically: true, encoding: .utf8)
      let result = syncsim(["check", scenario, "--baseline", baseline, "--markdown", directory + "/check.md"])
      #expect(result.code == 1)
      let markdown = try String(contentsOfFile: directory + "/check.md", encoding: .utf8)
      #expect(
        markdown.hasPrefix("## syncsim check: 0 passed, 1 failed\n\n| scenario | result | detail |\n|---|---|---|\n"))
      #expect(markdown.contains("| quickstart | **FAIL** | "))
      #expect(markdown.contains("\n### quickstart\n"))
      #expect(markdown.contains("- `swift run -c release syncsim run "))
    }
  }
}
