import Foundation
import SimMetrics
import SimTestSupport
import Testing

/// `run --shard I/N` and `merge` of a run's shards (issue 37 item 3): the merged files are the
/// unsharded run's, byte for byte; what cannot be sharded or merged says why.
@Suite struct RunShardTests {
  /// The library's 300 independent households with every per-row file a shard can write.
  func households(_ directory: String) throws -> String {
    let data = try Data(contentsOf: URL(fileURLWithPath: packageRoot + "/Scenarios/households.json"))
    var scenario = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    scenario["outputs"] = ["summary", "latency", "activities", "objects"]
    let file = directory + "/households.json"
    try JSONSerialization.data(withJSONObject: scenario, options: [.sortedKeys]).write(to: URL(fileURLWithPath: file))
    return file
  }

  @Test func threeShardsMergeIntoTheUnshardedRunByteForByte() throws {
    try withTemporaryDirectory { directory in
      let file = try households(directory)
      #expect(syncsim("run", file, "--out", directory + "/whole").code == 0)
      for index in 1...3 {
        let shard = syncsim("run", file, "--shard", "\(index)/3", "--out", directory + "/s\(index)")
        #expect(shard.code == 0, "\(shard.err)")
      }
      // Given in any order, the shards merge in shard order.
      let merged = syncsim(
        "merge", directory + "/s3", directory + "/s1", directory + "/s2", "--out", directory + "/merged")
      #expect(merged.code == 0, "\(merged.err)")
      #expect(merged.out.contains("merged 3 shards of households"))
      for name in ["summary.csv", "latency.csv", "activities.csv", "objects.csv", "resolved.json", "datapackage.json"] {
        let whole = try String(contentsOfFile: directory + "/whole/" + name, encoding: .utf8)
        let merged = try String(contentsOfFile: directory + "/merged/" + name, encoding: .utf8)
        #expect(whole == merged, "\(name)")
      }
      // A shard alone is a run of its parts: a third of the households' rows, its ids from 1.
      let one = try #require(CSVTable.parse(try String(contentsOfFile: directory + "/s2/summary.csv", encoding: .utf8)))
      let whole = try #require(
        CSVTable.parse(try String(contentsOfFile: directory + "/whole/summary.csv", encoding: .utf8)))
      let rows = { (table: CSVTable) in Double(table.rows[0][table.columns.firstIndex(of: "rows")!])! }
      #expect(rows(one) > rows(whole) / 4 && rows(one) < rows(whole) / 2)
    }
  }

  @Test func whatCannotBeShardedOrMergedSaysWhy() throws {
    try withTemporaryDirectory { directory in
      let file = try households(directory)
      // A coupled world is one part: the public database couples every account.
      let coupled = syncsim(
        "run", packageRoot + "/Scenarios/public-development.json", "--shard", "1/2", "--out", directory + "/p")
      #expect(coupled.code == 65)
      #expect(coupled.err.contains("cannot be sharded") && coupled.err.contains("public database"), "\(coupled.err)")
      let tooMany = syncsim("run", file, "--shard", "1/301", "--out", directory + "/t")
      #expect(tooMany.code == 65 && tooMany.err.contains("300 independent parts"), "\(tooMany.err)")
      #expect(syncsim("run", file, "--shard", "4/3", "--out", directory + "/t").code == 64)
      #expect(!FileManager.default.fileExists(atPath: directory + "/p"))
      // A missing shard, and a shard of another seed.
      for index in 1...2 {
        #expect(syncsim("run", file, "--shard", "\(index)/3", "--out", directory + "/s\(index)").code == 0)
      }
      #expect(syncsim("run", file, "--shard", "3/3", "--seed", "5", "--out", directory + "/other").code == 0)
      let missing = syncsim("merge", directory + "/s1", directory + "/s2", "--out", directory + "/m")
      #expect(missing.code == 65 && missing.err.contains("missing shards: 3/3"), "\(missing.err)")
      let other = syncsim(
        "merge", directory + "/s1", directory + "/s2", directory + "/other", "--out", directory + "/m")
      #expect(other.code == 65 && other.err.contains("seed 19 vs 5"), "\(other.err)")
      #expect(!FileManager.default.fileExists(atPath: directory + "/m"))
    }
  }

  @Test func aWorldOverAMillionDevicesRunsOnlyInShardsAndValidateSaysSo() throws {
    try withTemporaryDirectory { directory in
      // Refused before any device is expanded, with the way to run it.
      let fleet = packageRoot + "/Scripts/fleet/fleet-10m.json"
      for command in ["run", "validate"] {
        let refused = syncsim(command, fleet, "--out", directory + "/f")
        let unsharded = command == "run" ? refused : syncsim(command, fleet)
        #expect(unsharded.code == 65, "\(unsharded.err)")
        #expect(
          unsharded.err.contains("devices[0].count: more than 1000000 devices in all")
            && unsharded.err.contains("syncsim run --shard I/N"), "\(unsharded.err)")
      }
      #expect(!FileManager.default.fileExists(atPath: directory + "/f"))
      // validate --shard checks what run --shard would refuse, and what it runs.
      let file = try households(directory)
      let tooMany = syncsim("validate", file, "--shard", "1/400")
      #expect(tooMany.code == 65 && tooMany.err.contains("the world has 300 independent parts"), "\(tooMany.err)")
      let one = syncsim("validate", file, "--shard", "2/3")
      #expect(one.code == 0 && one.out.contains("ok (600 devices, 1d"), "\(one.out) \(one.err)")
      #expect(syncsim("validate", file, "--shard", "2").code == 64)
    }
  }
}
