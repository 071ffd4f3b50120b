import Foundation
import SimTestSupport
import Testing

/// Issue 59, item 2: `run --shard` over a folder that already holds that shard's whole results
/// keeps it and runs nothing; a shard that differs (seed, shard, a file edited) runs again. A job
/// array resubmitted after a preemption then costs only the shards that had not finished.
@Suite struct RunShardResumeTests {
  /// The library's 300 independent households, for 3 hours (each command with `--duration 3h`).
  static let households = packageRoot + "/Scenarios/households.json"

  func modified(_ path: String) throws -> Date {
    try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
  }

  @Test func aFinishedShardIsKeptAndADifferentOrEditedOneRunsAgain() throws {
    try withTemporaryDirectory { directory in
      let shard = directory + "/s1"
      #expect(syncsim("run", Self.households, "--duration", "3h", "--shard", "1/3", "--out", shard).code == 0)
      let written = try modified(shard + "/latency.csv")
      let manifest = try String(contentsOfFile: shard + "/run-shard.txt", encoding: .utf8)
      Thread.sleep(forTimeInterval: 0.05)
      // The same command again: kept, nothing run, nothing written.
      let again = syncsim("run", Self.households, "--duration", "3h", "--shard", "1/3", "--out", shard)
      #expect(again.code == 0)
      #expect(
        again.out.hasPrefix("shard 1/3 already finished in \(shard)/ (its run-shard.txt and 2 row files verified)"),
        "\(again.out)")
      #expect(!again.out.contains("latency "))
      #expect(try modified(shard + "/latency.csv") == written)
      // A shard killed between its commit and the lock's removal left the lock in its set: kept,
      // and the stray lock goes (the kill check's flake, 1 kill in about 400).
      try "".write(toFile: shard + "/.syncsim-shard.lock", atomically: false, encoding: .utf8)
      let stray = syncsim("run", Self.households, "--duration", "3h", "--shard", "1/3", "--out", shard)
      #expect(stray.code == 0 && stray.out.contains("already finished"), "\(stray.out)")
      #expect(!FileManager.default.fileExists(atPath: shard + "/.syncsim-shard.lock"))
      // Another seed is another run: replaced, and said so.
      let seeded = syncsim("run", Self.households, "--duration", "3h", "--shard", "1/3", "--seed", "5", "--out", shard)
      #expect(seeded.code == 0 && seeded.err.contains("holds another run's shard (scenarioHash") == false)
      #expect(seeded.err.contains("holds another run's shard (seed 19)"), "\(seeded.err)")
      #expect(try String(contentsOfFile: shard + "/run-shard.txt", encoding: .utf8) != manifest)
      // A row file edited after the shard wrote it: run again, and whole again.
      #expect(syncsim("run", Self.households, "--duration", "3h", "--shard", "1/3", "--out", shard).code == 0)
      let handle = try #require(FileHandle(forWritingAtPath: shard + "/latency.csv"))
      handle.seekToEndOfFile()
      handle.write(Data("x\n".utf8))
      try handle.close()
      let edited = syncsim("run", Self.households, "--duration", "3h", "--shard", "1/3", "--out", shard)
      #expect(edited.code == 0 && edited.err.contains("latency.csv is not the file the shard wrote"), "\(edited.err)")
      #expect(try String(contentsOfFile: shard + "/run-shard.txt", encoding: .utf8) == manifest)
      // The kept and rerun shards merge into the unsharded run.
      for index in 2...3 {
        #expect(
          syncsim(
            "run", Self.households, "--duration", "3h", "--shard", "\(index)/3", "--out", directory + "/s\(index)"
          ).code == 0)
      }
      // Three hours of households miss the scenario's day-long expectations: exit 1, files whole.
      #expect(syncsim("run", Self.households, "--duration", "3h", "--out", directory + "/whole").code == 1)
      let merge = syncsim("merge", shard, directory + "/s2", directory + "/s3", "--out", directory + "/merged")
      #expect(merge.code == 1 && merge.out.contains("merged 3 shards of households"), "\(merge.err)")
      for name in ["summary.csv", "latency.csv"] {
        #expect(
          try String(contentsOfFile: directory + "/merged/" + name, encoding: .utf8)
            == String(contentsOfFile: directory + "/whole/" + name, encoding: .utf8), "\(name)")
      }
    }
  }
}
