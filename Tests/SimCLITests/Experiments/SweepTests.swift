import Foundation
import SimCLI
import SimExperiments
import SimMetrics
import SimModel
import SimScenario
import SimTestSupport
import Testing

@Suite struct SweepTests {
  func factor(_ path: String, _ values: [String], zip: String? = nil) -> SweepPlan.Factor {
    SweepPlan.Factor(
      path: path, steps: JSONNode.parsePath(path)!, values: values.map { try! JSONParser.parse(Array($0.utf8)) },
      zipGroup: zip)
  }

  @Test func factorsAreCrossedZippedAndExcluded() {
    var plan = SweepPlan()
    plan.factors = [factor("a", ["1", "2"]), factor("b", ["10", "20", "30"])]
    #expect(plan.points().map(\.valueIndices) == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]])
    plan.factors.append(factor("c", ["\"x\"", "\"y\"", "\"z\""], zip: "bc"))
    plan.factors[1].zipGroup = "bc"
    #expect(
      plan.points().map(\.valueIndices) == [[0, 0, 0], [0, 1, 1], [0, 2, 2], [1, 0, 0], [1, 1, 1], [1, 2, 2]])
    plan.excluded = [[(path: "a", value: "2"), (path: "b", value: "20")]]
    #expect(plan.points().map(\.valueIndices) == [[0, 0, 0], [0, 1, 1], [0, 2, 2], [1, 0, 0], [1, 2, 2]])
    #expect(plan.points().map(\.index) == [0, 1, 2, 3, 4])
    #expect(plan.labels(of: plan.points()[4]) == ["2", "30", "z"])
    #expect(SweepPlan.parseSeeds("3..6") == [3, 4, 5, 6])
    #expect(SweepPlan.parseSeeds("1,5, 9") == [1, 5, 9])
    #expect(SweepPlan.parseSeeds("6..3") == nil)
  }

  @Test func confidenceIntervalsMatchAHandComputation() throws {
    // 1…5: mean 3, sd sqrt(2.5) = 1.58114, t(0.975, 4) = 2.776445, half-width 1.963243.
    let estimate = try #require(Statistics.estimate([1, 2, 3, 4, 5]))
    #expect(estimate.mean == 3)
    #expect(abs(estimate.standardDeviation - 2.5.squareRoot()) < 1e-12)
    #expect(abs(estimate.low - (3 - 1.963243)) < 1e-6)
    #expect(abs(estimate.high - (3 + 1.963243)) < 1e-6)
    #expect(abs(Statistics.tQuantile975(degreesOfFreedom: 30) - 2.042272) < 1e-5)
    #expect(abs(Statistics.tQuantile975(degreesOfFreedom: 120) - 1.979930) < 1e-5)
    // Welch: a = 1…5, b = 3…7: difference 2; both variances 2.5/5 = 0.5, se 1, df 8, t = 2.306004.
    let welch = try #require(Statistics.welch([1, 2, 3, 4, 5], [3, 4, 5, 6, 7]))
    #expect(welch.difference == 2)
    #expect(abs(welch.low - (2 - 2.306004)) < 1e-6)
  }

  static let scenario = packageRoot + "/Scenarios/push-drop-sweep.json"

  @Test func outputsAreByteIdenticalWhateverTheJobsAndEqualToRunningEachPointAlone() throws {
    try withTemporaryDirectory { directory in
      let args = ["sweep", Self.scenario, "--seeds", "1..3", "--set", "duration=1d"]
      #expect(
        SyncSimCommand.main(
          arguments: args + ["--jobs", "1", "--out", directory + "/one"], console: CapturedConsole().console) == 0)
      #expect(
        SyncSimCommand.main(
          arguments: args + ["--jobs", "4", "--out", directory + "/four"], console: CapturedConsole().console) == 0)
      for file in ["sweep.csv", "sweep-summary.csv", "points/point-0002/scenario.json"] {
        let one = try Data(contentsOf: URL(fileURLWithPath: directory + "/one/" + file))
        let four = try Data(contentsOf: URL(fileURLWithPath: directory + "/four/" + file))
        #expect(one == four, "\(file) differs between --jobs 1 and --jobs 4")
      }
      // Point 2 (drop 0.5), seed 3, run alone from its resolved scenario gives the same metrics.
      #expect(
        syncsim("run", directory + "/one/points/point-0002/scenario.json", "--seed", "3", "--out", directory + "/alone")
          .code <= 1)
      let alone = try #require(
        CSVTable.parse(String(contentsOfFile: directory + "/alone/summary.csv", encoding: .utf8)))
      let sweep = try #require(CSVTable.parse(String(contentsOfFile: directory + "/one/sweep.csv", encoding: .utf8)))
      let rows = sweep.rows.filter { $0[1] == "2" && $0[3] == "3" }
      // One row per metric of the run: its policies' blocked.* (the default set has neither
      // singleDeviceAccount, thermal nor syncEngineBackground), the wait causes' and errors
      // always reported (no fault of this run raises another).
      let unraised =
        CloudError.allCases.count - CloudError.alwaysReported.count
        + 3 * (WaitCause.allCases.count - WaitCause.alwaysReported.count)
      #expect(rows.count == RunSummary.metricNames.count - 9 - unraised)
      #expect(rows.count == alone.columns.filter { RunSummary.metric(column: $0) != nil }.count)
      for row in rows {
        let column = alone.columns.firstIndex(of: row[6])!
        #expect(alone.rows[0][column] == row[7], "\(row[6])")
      }
      #expect(rows[0][8] == alone.rows[0][alone.columns.firstIndex(of: "fingerprint")!])
    }
  }

  @Test func threeShardsMergeIntoExactlyTheUnshardedSweep() throws {
    try withTemporaryDirectory { directory in
      let args = ["sweep", Self.scenario, "--seeds", "1..4", "--set", "duration=12h"]
      #expect(
        SyncSimCommand.main(arguments: args + ["--out", directory + "/all"], console: CapturedConsole().console) == 0)
      for shard in 1...3 {
        #expect(
          SyncSimCommand.main(
            arguments: args + ["--shard", "\(shard)/3", "--out", directory + "/s\(shard)"],
            console: CapturedConsole().console) == 0)
      }
      #expect(syncsim("merge", directory + "/s2", directory + "/s1", "--out", directory + "/merged").code == 65)
      let merged = syncsim(
        "merge", directory + "/s3", directory + "/s1", directory + "/s2", "--out", directory + "/merged")
      #expect(merged.code == 0)
      for file in [
        "sweep.csv", "sweep-summary.csv", "points/point-0000/scenario.json", "points/point-0003/scenario.json",
      ] {
        let all = try Data(contentsOf: URL(fileURLWithPath: directory + "/all/" + file))
        let combined = try Data(contentsOf: URL(fileURLWithPath: directory + "/merged/" + file))
        #expect(all == combined, "\(file) differs after merging")
      }
    }
  }

  /// Issue 71, item 4: a merge copied each point's `scenario.json` and `resolved.json`
  /// unchecked, so an emptied or edited one merged with exit 0 into a point that cannot be rerun;
  /// and `shard.txt` had no digest. Each file a shard carries is now listed in its manifest, and
  /// the manifest carries its own digest.
  @Test func aShardsEditedPointFileOrManifestIsRefusedByTheMerge() throws {
    try withTemporaryDirectory { directory in
      let args = ["sweep", Self.scenario, "--seeds", "1..2", "--set", "duration=2h"]
      func shards(_ name: String) throws -> [String] {
        try (1...2).map { shard in
          let out = directory + "/\(name)-s\(shard)"
          #expect(
            SyncSimCommand.main(
              arguments: args + ["--shard", "\(shard)/2", "--out", out], console: CapturedConsole().console) == 0)
          return out
        }
      }
      let clean = try shards("clean")
      #expect(syncsim(["merge"] + clean + ["--out", directory + "/merged"]).code == 0)
      let points = try FileManager.default.contentsOfDirectory(atPath: clean[1] + "/points").sorted()
      let point = try #require(points.first)
      for (name, edit) in [
        ("emptied", { (path: String) in try "".write(toFile: path, atomically: false, encoding: .utf8) }),
        ("edited", { (path: String) in
          // Still JSON, one byte more: what a hand edit or a tool's re-save leaves.
          let text = try String(contentsOfFile: path, encoding: .utf8)
          try (String(text.dropLast()) + " \n").write(toFile: path, atomically: false, encoding: .utf8)
        }),
      ] {
        let copy = try shards(name)
        for file in ["scenario.json", "resolved.json"] { try edit(copy[1] + "/points/\(point)/\(file)") }
        let merged = syncsim(["merge"] + copy + ["--out", directory + "/m-\(name)"])
        #expect(merged.code == 65, "\(name): \(merged.err)")
        #expect(merged.err.contains("\(copy[1])/points/\(point)/scenario.json: "), "\(name): \(merged.err)")
        #expect(merged.err.contains("(edited or cut short on its way"), "\(name): \(merged.err)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/m-\(name)"))
      }
      // The manifest itself, edited in range: its digest no longer matches.
      let manifest = clean[0] + "/shard.txt"
      let text = try String(contentsOfFile: manifest, encoding: .utf8)
      try text.replacingOccurrences(of: "runs ", with: "runs 1").write(toFile: manifest, atomically: false, encoding: .utf8)
      let edited = syncsim(["merge"] + clean + ["--out", directory + "/m-manifest"])
      #expect(edited.code == 65 && edited.err.contains("shard.txt: its digest line does not match"), "\(edited.err)")
    }
  }

  /// Found by trying odd arguments: a sweep.csv whose `metric` column was last trapped.
  @Test func compareNamesTheFolderItCannotReadInsteadOfTrapping() throws {
    try withTemporaryDirectory { directory in
      try FileManager.default.createDirectory(atPath: directory + "/odd", withIntermediateDirectories: true)
      try Data("a,metric\n1,x\n".utf8).write(to: URL(fileURLWithPath: directory + "/odd/sweep.csv"))
      let odd = syncsim("compare", directory + "/odd", directory + "/odd")
      #expect(odd.code == 65)
      #expect(odd.err.contains(directory + "/odd: no readable sweep.csv or summary.csv in it"))
      let missing = syncsim("compare", directory + "/none", directory + "/odd")
      #expect(missing.code == 65)
      #expect(missing.err.contains(directory + "/none: no such folder"))
    }
  }

  @Test func compareFindsNoChangeAcrossSeedsAndWorseWhenDropsRise() throws {
    try withTemporaryDirectory { directory in
      let base = ["sweep", Self.scenario, "--set", "duration=4d"]
      _ = SyncSimCommand.main(
        arguments: base + ["--set", "push.dropProbability=0.25", "--seeds", "1..10", "--out", directory + "/a"],
        console: CapturedConsole().console)
      _ = SyncSimCommand.main(
        arguments: base + ["--set", "push.dropProbability=0.25", "--seeds", "11..20", "--out", directory + "/b"],
        console: CapturedConsole().console)
      _ = SyncSimCommand.main(
        arguments: base + ["--set", "push.dropProbability=0.6", "--seeds", "11..20", "--out", directory + "/c"],
        console: CapturedConsole().console)
      let same = syncsim("compare", directory + "/a", directory + "/b", "--all")
      let latencyLine = try #require(same.out.split(separator: "\n").first { $0.contains(" latency.mean ") })
      #expect(latencyLine.contains("  no significant change  ") && latencyLine.contains(" (s)"))
      let worse = syncsim("compare", directory + "/a", directory + "/c")
      let worseLine = try #require(worse.out.split(separator: "\n").first { $0.contains(" latency.mean ") })
      #expect(worseLine.contains("  worse  +") && worseLine.contains(" % (s)"))
      #expect(worse.out.contains("pushes.dropped"))
    }
  }

  @Test func badSweepPathsAndValuesAreReportedWithoutRunningAnything() throws {
    withTemporaryDirectory { directory in
      let result = syncsim(
        "sweep", Self.scenario, "--set", "push.dropProbabilty=0.1", "--set", "cloud.importPageSize=0,10", "--set",
        "devices.power=1",
        "--out", directory + "/out")
      #expect(result.code == 65)
      #expect(
        result.err.contains("push.dropProbabilty: unknown key \"dropProbabilty\" (did you mean \"dropProbability\"?)"))
      #expect(result.err.contains("cloud.importPageSize: 0 is below 1"))
      #expect(result.err.contains("devices.power: cannot set \"power\" inside an array"))
      #expect(!FileManager.default.fileExists(atPath: directory + "/out"))
    }
  }
}
