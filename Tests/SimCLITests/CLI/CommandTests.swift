import Foundation
import SimCLI
import SimExperiments
import SimMetrics
import SimScenario
import SimTestSupport
import Testing

@Suite struct CommandTests {
  @Test func runningTwiceWritesByteIdenticalFilesAndAnotherSeedDiffers() throws {
    try withTemporaryDirectory { directory in
      let scenario = packageRoot + "/Scenarios/quickstart.json"
      #expect(syncsim("run", scenario, "--out", directory + "/a", "--trace").code == 0)
      #expect(syncsim("run", scenario, "--out", directory + "/b", "--trace").code == 0)
      #expect(syncsim("run", scenario, "--out", directory + "/c", "--seed", "2").code == 0)
      for file in ["summary.csv", "latency.csv", "activities.csv", "timeline.csv", "trace.csv"] {
        let a = try Data(contentsOf: URL(fileURLWithPath: directory + "/a/" + file))
        let b = try Data(contentsOf: URL(fileURLWithPath: directory + "/b/" + file))
        #expect(a == b, "\(file) differs between identical runs")
        #expect(a.count > 100)
      }
      let a = try Data(contentsOf: URL(fileURLWithPath: directory + "/a/latency.csv"))
      let c = try Data(contentsOf: URL(fileURLWithPath: directory + "/c/latency.csv"))
      #expect(a != c)
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory + "/a").filter { $0.hasPrefix(".") }
      #expect(leftovers.isEmpty)
    }
  }

  @Test func badScenarioExits65WithEveryProblemAndWritesNothing() throws {
    try withTemporaryDirectory { directory in
      let file = directory + "/bad.json"
      try Data(#"{"version": 1, "devices": [{"name": "a", "power": {"battery": 140}}], "bogus": 1}"#.utf8).write(
        to: URL(fileURLWithPath: file))
      let result = syncsim("run", file, "--out", directory + "/out")
      #expect(result.code == 65)
      #expect(result.err.contains("bad.json: devices[0].power.battery: 140 is above 100"))
      #expect(result.err.contains("bad.json: bogus: unknown key \"bogus\""))
      #expect(!FileManager.default.fileExists(atPath: directory + "/out"))
      let validate = syncsim("validate", file, packageRoot + "/Scenarios/quickstart.json")
      #expect(validate.code == 65)
      #expect(validate.out.contains("quickstart.json: ok"))
    }
  }

  @Test func failedExpectationsExit1AndNameMetricExpectedAndGot() throws {
    try withTemporaryDirectory { directory in
      let file = directory + "/strict.json"
      try Data(
        #"{"version": 1, "devices": [{"name": "a"}, {"name": "b"}], "workloads": [{"devices": "all", "editsPerHour": 20}], "expect": [{"metric": "latency.max", "max": "1s"}]}"#
          .utf8
      )
      .write(to: URL(fileURLWithPath: file))
      let result = syncsim("run", file, "--out", directory + "/out")
      #expect(result.code == 1)
      #expect(result.out.contains("FAIL latency.max ≤ 1.00s: got"))
    }
  }

  @Test func usageErrorsExit64() {
    #expect(syncsim().code == 64)
    #expect(syncsim("frobnicate").code == 64)
    #expect(syncsim("run").code == 64)
    #expect(syncsim("run", "x.json", "--seed", "minus one").code == 64)
    #expect(syncsim("run", "x.json", "--bogus").code == 64)
    #expect(syncsim("--version").out == SyncSimCommand.version + "\n")
    #expect(syncsim("run", "--help").out.contains("usage: syncsim run"))
    #expect(syncsim("run", "/nonexistent.json").code == 65)
  }

  @Test func benchUsageNamesTheOptionsTheFleetAccepts() {
    let usage = syncsim("bench", "--help").out
    #expect(usage.contains("syncsim bench fleet [--accounts N] [--hours H] [--edits-per-hour R] [--rounds K]"))
    let fleet = syncsim("bench", "fleet", "--accounts", "2", "--hours", "1", "--edits-per-hour", "3")
    #expect(fleet.code == 0)
    #expect(fleet.out.contains("fleet: 2 accounts × 2 devices"))
    #expect(syncsim("bench", "fleet", "--duration", "2h").code == 64)
    #expect(syncsim("bench", "fleet", "--accounts", "0").code == 64)
    // An infinite rate ran forever before it was refused.
    let infinite = syncsim("bench", "fleet", "--edits-per-hour", "1e309")
    #expect(infinite.code == 64)
    #expect(infinite.err.contains("--edits-per-hour must be above 0 and at most 360000"))
  }

  /// Several rounds in one process: their spread, and a check that they processed the same events.
  @Test func benchFleetRoundsReportTheirSpread() {
    let fleet = syncsim("bench", "fleet", "--accounts", "3", "--hours", "2", "--rounds", "3")
    #expect(fleet.code == 0)
    let line = fleet.out.split(separator: "\n").first { $0.hasPrefix("rounds") }.map(String.init) ?? ""
    #expect(line.hasPrefix("rounds            3: min "))
    let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Double($0) }
    // 3 rounds, then min ≤ median ≤ max events/s.
    #expect(numbers.count == 4)
    if numbers.count == 4 { #expect(numbers[1] <= numbers[2] && numbers[2] <= numbers[3] && numbers[1] > 0) }
    #expect(!syncsim("bench", "fleet", "--accounts", "3", "--hours", "2").out.contains("rounds "))
    #expect(syncsim("bench", "fleet", "--rounds", "0").code == 64)
    #expect(syncsim("bench", "fleet", "--rounds", "101").err.contains("--rounds must be 1…100"))
  }
}
