import Foundation
import SimMetrics
import SimTestSupport
import Testing

@testable import SimCLI
@testable import SimScenario

/// Every command that writes a result set writes it whole: staged, synced and exchanged, with the
/// user's own files kept beside it (issue 39, item 6). `Scripts/kill-check.py` kills each command
/// at random moments and finds only whole old or whole new sets.
@Suite struct WholeSetTests {
  static let quickstart = packageRoot + "/Scenarios/quickstart.json"

  func inode(_ path: String) -> UInt64 {
    var status = stat()
    return lstat(path, &status) == 0 ? UInt64(status.st_ino) : 0
  }

  @Test func aRunIntoAFolderWithTheUsersFilesIsExchangedWholeAndKeepsThem() throws {
    try withTemporaryDirectory { directory in
      let out = directory + "/out"
      #expect(syncsim(["run", Self.quickstart, "--out", out, "--seed", "1"]).code == 0)
      try "mine\n".write(toFile: out + "/notes.txt", atomically: true, encoding: .utf8)
      let notes = inode(out + "/notes.txt")
      let before = inode(out)
      #expect(syncsim(["run", Self.quickstart, "--out", out, "--seed", "2"]).code == 0)
      #expect(inode(out) != before, "the folder was exchanged, not rewritten file by file")
      #expect(inode(out + "/notes.txt") == notes, "the user's file is the same file, linked into the new set")
      #expect(try String(contentsOfFile: out + "/notes.txt", encoding: .utf8) == "mine\n")
      let summary = try String(contentsOfFile: out + "/summary.csv", encoding: .utf8)
      #expect(summary.split(separator: "\n")[1].hasPrefix("quickstart,2,"))
      let hidden = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".") }
      #expect(hidden.isEmpty, "no staging folder or old set left: \(hidden)")
    }
  }

  /// A shard killed between its commit and the removal of its journal's lock left the lock file
  /// in its result set. The next run into that folder keeps the user's files, but not that one:
  /// it is SyncSim's (the kill check found it outliving a resumed shard, 1 kill in about 300).
  @Test func aLeftLockFileIsNotKeptAsTheUsersFile() throws {
    try withTemporaryDirectory { directory in
      let out = directory + "/out"
      #expect(syncsim(["run", Self.quickstart, "--out", out, "--seed", "1"]).code == 0)
      try "".write(toFile: out + "/" + RunShardJournal.lockName, atomically: false, encoding: .utf8)
      try "mine\n".write(toFile: out + "/notes.txt", atomically: true, encoding: .utf8)
      #expect(syncsim(["run", Self.quickstart, "--out", out, "--seed", "2"]).code == 0)
      let names = try FileManager.default.contentsOfDirectory(atPath: out)
      #expect(names.contains("notes.txt"))
      #expect(!names.contains(RunShardJournal.lockName), "\(names)")
      // And from a staging folder a killed write left (its entries go back to the target first).
      let left = directory + "/.out.tmp-999999-" + ScenarioFile.hostToken + "-zz"
      try FileManager.default.createDirectory(atPath: left, withIntermediateDirectories: false)
      try "".write(toFile: left + "/" + RunShardJournal.lockName, atomically: false, encoding: .utf8)
      try "late\n".write(toFile: left + "/late.txt", atomically: false, encoding: .utf8)
      ScenarioFile.removeStaleTemporaries(in: directory)
      let after = try FileManager.default.contentsOfDirectory(atPath: out)
      #expect(after.contains("late.txt") && !after.contains(RunShardJournal.lockName), "\(after)")
    }
  }

  @Test func aSweepReplacesItsOldPointsAndFilesWhole() throws {
    try withTemporaryDirectory { directory in
      let out = directory + "/sweep"
      let four = syncsim([
        "sweep", Self.quickstart, "--set", "push.dropProbability=0,0.25,0.5,0.75", "--seeds", "1..2", "--out", out,
      ])
      #expect(four.code == 0, "\(four.err)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/points").count == 4)
      let two = syncsim([
        "sweep", Self.quickstart, "--set", "push.dropProbability=0,0.5", "--seeds", "3..4", "--out", out,
      ])
      #expect(two.code == 0, "\(two.err)")
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: out + "/points").sorted() == ["point-0000", "point-0001"])
      let resolved = try String(contentsOfFile: out + "/points/point-0001/resolved.json", encoding: .utf8)
      #expect(resolved.contains("\"seeds\": [3, 4]") || resolved.contains("\"seeds\":[3,4]"), "\(resolved.prefix(300))")
    }
  }

  @Test func mergedPointsKeepTheirResolvedScenarioAndBadShardsAreRefused() throws {
    try withTemporaryDirectory { directory in
      for index in 1...2 {
        let shard = syncsim([
          "sweep", Self.quickstart, "--set", "push.dropProbability=0,0.5", "--seeds", "1..2", "--shard", "\(index)/2",
          "--out", directory + "/s\(index)",
        ])
        #expect(shard.code == 0, "\(shard.err)")
      }
      let merged = syncsim(["merge", directory + "/s1", directory + "/s2", "--out", directory + "/m"])
      #expect(merged.code == 0, "\(merged.err)")
      for point in ["point-0000", "point-0001"] {
        #expect(FileManager.default.fileExists(atPath: directory + "/m/points/\(point)/resolved.json"))
        #expect(FileManager.default.fileExists(atPath: directory + "/m/points/\(point)/scenario.json"))
      }
      // A shard cut short mid-row, and one with a value that is not a number: refused, nothing written.
      let csv = directory + "/s2/sweep.csv"
      var text = try String(contentsOfFile: csv, encoding: .utf8)
      try String(text.dropLast(9)).write(toFile: csv, atomically: true, encoding: .utf8)
      // Its manifest's line no longer matches (issue 71); made to match, as a forger would, the
      // rows are still checked.
      let unsealed = syncsim(["merge", directory + "/s1", directory + "/s2", "--out", directory + "/t"])
      #expect(unsealed.code == 65 && unsealed.err.contains("s2/sweep.csv: 18169 bytes"), "\(unsealed.err)")
      try reseal(directory + "/s2")
      let truncated = syncsim(["merge", directory + "/s1", directory + "/s2", "--out", directory + "/t"])
      #expect(truncated.code == 65)
      #expect(truncated.err.contains("1 row with the wrong number of fields"), "\(truncated.err)")
      var lines = text.split(separator: "\n").map(String.init)
      var fields = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let value = try #require(lines[0].split(separator: ",").firstIndex(of: "value"))
      fields[value] = "=1+1"
      lines[1] = fields.joined(separator: ",")
      text = lines.joined(separator: "\n") + "\n"
      try text.write(toFile: csv, atomically: true, encoding: .utf8)
      try reseal(directory + "/s2")
      let bad = syncsim(["merge", directory + "/s1", directory + "/s2", "--out", directory + "/t"])
      #expect(bad.code == 65)
      #expect(bad.err.contains("row 1 holds a value that is not a number"), "\(bad.err)")
      #expect(!FileManager.default.fileExists(atPath: directory + "/t"))
    }
  }

  /// A sweep shard's `shard.txt` made to match its `sweep.csv` as it now is (a forger's copy).
  func reseal(_ shard: String) throws {
    let csv = try String(contentsOfFile: shard + "/sweep.csv", encoding: .utf8)
    let manifest = try String(contentsOfFile: shard + "/shard.txt", encoding: .utf8)
    let lines = manifest.split(separator: "\n").filter { !$0.hasPrefix("digest ") }.map { line in
      line.hasPrefix("file sweep.csv ") ? String(SweepCommandLine.fileLine("sweep.csv", csv).dropLast()) : String(line)
    }
    try SelfDigest.signed(lines.joined(separator: "\n") + "\n").write(
      toFile: shard + "/shard.txt", atomically: true, encoding: .utf8)
  }
}

/// Issue 38, item 7: `datapackage.json` describes every column of every CSV a run writes, with
/// type, unit and meaning; a column added without a description fails here.
@Suite struct DataPackageTests {
  @Test func everyColumnOfEveryFileARunWritesIsDescribed() throws {
    try withTemporaryDirectory { directory in
      let text = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
        .replacingOccurrences(
          of: "\"seed\": 1,",
          with: "\"seed\": 1, \"outputs\": [\"summary\", \"latency\", \"activities\", \"timeline\", \"objects\"],")
      try text.write(toFile: directory + "/all.json", atomically: true, encoding: .utf8)
      let run = syncsim(["run", directory + "/all.json", "--trace", "--out", directory + "/out"])
      #expect(run.code == 0, "\(run.err)")
      let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/out/datapackage.json"))
      let package = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      #expect(package["profile"] as? String == "tabular-data-package")
      let resources = try #require(package["resources"] as? [[String: Any]])
      let csvs = try FileManager.default.contentsOfDirectory(atPath: directory + "/out").filter { $0.hasSuffix(".csv") }
        .sorted()
      #expect(resources.compactMap { $0["path"] as? String }.sorted() == csvs)
      #expect(csvs.count == 7)
      for resource in resources {
        let path = try #require(resource["path"] as? String)
        let header = try String(contentsOfFile: directory + "/out/" + path, encoding: .utf8).prefix { $0 != "\n" }
        let fields = try #require((resource["schema"] as? [String: Any])?["fields"] as? [[String: Any]])
        #expect(fields.compactMap { $0["name"] as? String } == header.split(separator: ",").map(String.init), "\(path)")
        for field in fields {
          let name = field["name"] as? String ?? "?"
          #expect((field["description"] as? String ?? "").count > 5, "\(path) \(name) has no description")
          if path == "summary.csv", let metric = RunSummary.metric(named: name) {
            #expect((field["unit"] as? String == "s") == metric.isDuration, "\(path) \(name)")
          } else if name.hasSuffix("At") || name == "latency" || name.hasPrefix("blocked.") || name.hasPrefix("notify.")
          {
            #expect(field["unit"] as? String == "s", "\(path) \(name) is in seconds")
          }
        }
      }
      #expect(DataPackage.describe(file: "latency.csv", column: "newColumn").description.isEmpty)
    }
  }
}
