import Foundation
import SimKernel
import SimMetrics
import SimTestSupport
import Testing

@testable import SimCLI
@testable import SimReport
@testable import SimScenario

/// What the fuzzer and the issue's "also" list found (issue 39), each with its numbers.
@Suite struct FuzzFindingsTests {
  /// A value that rounds to zero at six decimals was written "0." (compare's JSON of a p-value
  /// of 1e-9 did not parse).
  @Test func aTinyNumberIsWrittenZero() {
    #expect(CSVTable.number(1e-9) == "0")
    #expect(CSVTable.number(-1e-9) == "0")
    #expect(CSVTable.number(0.0000015) == "0.000002")
  }

  /// Fuzz case 1775 (seed 1, from realworld-engine-batch-limit): `outputs` listing "activities"
  /// four times opened four writers of one file, and the run failed to write (exit 73) after
  /// `validate` had passed it. A file listed twice is now written once, with a warning.
  @Test func anOutputListedTwiceIsWrittenOnce() throws {
    try withTemporaryDirectory { directory in
      let run = try ScenarioRun(
        #"""
        {"version": 1, "name": "twice", "duration": "1h", "devices": [{"name": "a"}, {"name": "b"}],
         "workloads": [{"devices": "a", "editsPerHour": 6}],
         "outputs": ["summary", "activities", "summary", "activities", "latency", "latency"]}
        """#, named: "twice", in: directory)
      #expect(run.code == 0, "\(run.err)")
      #expect(run.err.contains(#"outputs[3]: warning: "activities" is listed twice; it is written once"#), "\(run.err)")
      #expect(try run.table("activities.csv").rows.count > 0)
      #expect(try run.table("latency.csv").rows.count > 0)
    }
  }

  @Test func durationTotalsSaturateInsteadOfOverflowing() {
    let twoYears = SimDuration.days(730)
    var total = SimDuration.zero
    for _ in 0..<200 { total = total.saturatingAdding(twoYears) }
    #expect(total.nanoseconds == Int64.max)
    #expect(SimDuration.seconds(3).saturatingAdding(.seconds(4)) == .seconds(7))
    #expect(SimDuration(nanoseconds: .min + 5).saturatingAdding(SimDuration(nanoseconds: -10)).nanoseconds == .min)
  }

  /// Fuzz case 2225 (seed 11): the throttled fleet with retry-afters up to 60,000,000 s trapped
  /// (SIGILL) summing them; it now runs to its end.
  @Test func aFleetWithRetryAftersOfTwoYearsRunsToItsEnd() throws {
    try withTemporaryDirectory { directory in
      var text = try String(contentsOfFile: packageRoot + "/Scenarios/server-throttle-fleet.json", encoding: .utf8)
      text = text.replacingOccurrences(of: "[\"30s\", \"60s\"]", with: "[\"30s\", \"60000000s\"]")
      #expect(text.contains("60000000s"))
      try text.write(toFile: directory + "/s.json", atomically: true, encoding: .utf8)
      let result = syncsim(["run", directory + "/s.json", "--duration", "10m", "--out", directory + "/out"])
      #expect(result.code == 1, "expectations fail, nothing traps: \(result.err)")
      #expect(FileManager.default.fileExists(atPath: directory + "/out/summary.csv"))
    }
  }

  /// A factor's value that nests too deep made the point's generated document fail to parse, and
  /// the error named line 71 of the 20-line quickstart.json. It now names the point and values.
  @Test func aPointThatNestsTooDeepIsNamedByItsValuesNotByALineOfAFileNobodyWrote() {
    var value = "{}"
    for _ in 0..<61 { value = "{\"a\": \(value)}" }
    let result = syncsim([
      "sweep", packageRoot + "/Scenarios/quickstart.json", "--set", "devices[0].power.x=\(value)", "--out",
      "/nonexistent/x",
    ])
    #expect(result.code == 65)
    #expect(
      result.err.contains("quickstart.json: sweep: at point 0 (devices[0].power.x={\"a\": {\"a\""), "\(result.err)")
    #expect(result.err.contains("the scenario with these values is not valid JSON: nesting deeper than 64 levels"))
    #expect(!result.err.contains("quickstart.json:71:"))
  }

  @Test func aRefusedProbabilityOfOneIsNotCalledZeroInAWarning() throws {
    let text = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
      .replacingOccurrences(
        of: "\"seed\": 1,",
        with: "\"seed\": 1, \"cloud\": {\"networkFailureProbability\": 1, \"networkRetryBackoff\": \"5s\"},")
    let problems: [ScenarioProblem]
    do {
      problems = try ScenarioDecoder.decode(Array(text.utf8), file: "p.json").1
    } catch {
      problems = error.problems
    }
    #expect(problems.contains { $0.message == "1 would retry forever" })
    #expect(!problems.contains { $0.message.contains("is 0, so nothing backs off") })
  }

  /// The report's mapped table decodes every field as `CSVTable.parse` does, and leaves out the
  /// same malformed records.
  @Test func theMappedTableReadsWhatTheParserReads() throws {
    let text =
      "a,b,c\r\n1,\"x,y\",\"say \"\"hi\"\"\"\n2,\"two\nlines\",é\n3,short\n4,,\n\"5\",\"\",\"=1\"\r\n\r\n"
    var malformed: [Int] = []
    let parsed = try #require(CSVTable.parse(text, malformed: &malformed))
    let mapped = try #require(ReportTable(bytes: Data(text.utf8)))
    #expect(mapped.columns == parsed.columns)
    #expect(mapped.rows.count == parsed.rows.count)
    #expect(malformed == [3])
    for (row, fields) in zip(mapped.rows, parsed.rows) {
      #expect(parsed.columns.map { mapped.text(row, $0) } == fields)
    }
    #expect(parsed.rows[0] == ["1", "x,y", "say \"hi\""])
    #expect(parsed.rows[1] == ["2", "two\nlines", "é"])
  }
}
