import Foundation
import SimMetrics
import SimTestSupport
import Testing

@testable import SimCLI

/// Issue 59, item 5: `syncsim status` reads shard folders (finished, or started with a journal of
/// finished runs) and says how far the sweep has got, which shards no folder is, and refuses a mix.
@Suite struct StatusTests {
  @Test func statusCountsFinishedRunsAndNamesMissingShards() throws {
    try withTemporaryDirectory { directory in
      let sweep = SweepResumeTests.arguments
      #expect(syncsim(sweep + ["--shard", "1/3", "--out", directory + "/1"]).code == 0)
      // Shard 2 started: two of its four runs finished (runs 1 and 4 of 12).
      #expect(syncsim(sweep + ["--out", directory + "/whole"]).code == 0)
      var args = ArgumentList(Array(sweep.dropFirst()) + ["--shard", "2/3", "--out", directory + "/2"])
      let options = try SweepCommand.parse(&args, environment: [:])
      guard case .success(let prepared) = SweepCommand.prepare(options, console: CapturedConsole().console) else {
        Issue.record("prepare failed")
        return
      }
      let table = try #require(CSVTable.parse(try String(contentsOfFile: directory + "/whole/sweep.csv", encoding: .utf8)))
      let journal = SweepJournal(
        out: directory + "/2", manifest: SweepCommand.journalManifest(prepared, options, total: 12), columns: table.columns)
      try journal.open()
      for run in [1, 4] { journal.record(run: run, rows: table.rows.filter { Int($0[1])! * 3 + Int($0[2])! == run }) }

      let status = syncsim(["status", directory + "/1", directory + "/2"])
      #expect(status.code == 1, "not finished")
      #expect(status.out.contains("shard 1/3  4 of 4 runs  finished"), "\(status.out)")
      #expect(status.out.contains("shard 2/3  2 of 4 runs  started, not finished"), "\(status.out)")
      #expect(status.out.contains("missing      shards 3"), "\(status.out)")
      #expect(status.out.contains("total        6 of 12 runs finished"), "\(status.out)")
      // A glob over the folder's parent finds the journal as its own entry: the same answer.
      let globbed = syncsim(["status", directory + "/1", directory + "/2.resume"])
      #expect(globbed.out.contains("shard 2/3  2 of 4 runs"), "\(globbed.out)")

      // Every shard finished: exit 0.
      #expect(syncsim(sweep + ["--shard", "2/3", "--out", directory + "/2"]).code == 0)
      #expect(syncsim(sweep + ["--shard", "3/3", "--out", directory + "/3"]).code == 0)
      let done = syncsim(["status", directory + "/1", directory + "/2", directory + "/3"])
      #expect(done.code == 0 && done.out.contains("total        12 of 12 runs finished"), "\(done.out)")

      // A shard of another sweep: refused.
      var other = sweep
      other[other.firstIndex(of: "1..3")!] = "4..6"
      #expect(syncsim(other + ["--shard", "1/3", "--out", directory + "/other"]).code == 0)
      let mixed = syncsim(["status", directory + "/1", directory + "/other"])
      #expect(mixed.code == 65 && mixed.err.contains("shards of different sweeps"), "\(mixed.err)")
    }
  }

  /// The time left is each started shard's own pace times its own runs left, whatever order the
  /// folders are given in: shard 2 finished 1 run in 10 s (3 left: 30 s), shard 3 finished 3
  /// runs in 3 s (1 left: 1 s), so 30 s. (The paces were once paired with the shards in folder
  /// order: 10 s.)
  @Test func theTimeLeftIsEachShardsOwnPace() throws {
    try withTemporaryDirectory { directory in
      let sweep = SweepResumeTests.arguments
      #expect(syncsim(sweep + ["--out", directory + "/whole"]).code == 0)
      let table = try #require(CSVTable.parse(try String(contentsOfFile: directory + "/whole/sweep.csv", encoding: .utf8)))
      let start = Date(timeIntervalSince1970: 1_800_000_000)
      for (shard, runs, seconds) in [(2, [1], 10.0), (3, [2, 5, 8], 3.0)] {
        var args = ArgumentList(Array(sweep.dropFirst()) + ["--shard", "\(shard)/3", "--out", directory + "/\(shard)"])
        let options = try SweepCommand.parse(&args, environment: [:])
        guard case .success(let prepared) = SweepCommand.prepare(options, console: CapturedConsole().console) else {
          Issue.record("prepare failed")
          return
        }
        let journal = SweepJournal(
          out: directory + "/\(shard)", manifest: SweepCommand.journalManifest(prepared, options, total: 12),
          columns: table.columns)
        try journal.open()
        try FileManager.default.setAttributes([.modificationDate: start], ofItemAtPath: journal.folder + "/manifest.txt")
        for run in runs {
          journal.record(run: run, rows: table.rows.filter { Int($0[1])! * 3 + Int($0[2])! == run })
          try FileManager.default.setAttributes(
            [.modificationDate: start.addingTimeInterval(seconds)], ofItemAtPath: journal.folder + "/run-\(run).csv")
        }
      }
      let status = syncsim(["status", directory + "/3", directory + "/2"])
      #expect(status.out.contains("about 30.00s left"), "\(status.out)")
    }
  }
}
