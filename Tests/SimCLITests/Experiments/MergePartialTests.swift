import Foundation
import SimTestSupport
import Testing

/// Issue 59, item 2: `merge` refuses missing shards and says `--partial` exists; `--partial`
/// writes what is there, marked as partial (partial.txt, datapackage.json), and a later whole
/// merge into the same folder leaves no mark behind.
@Suite struct MergePartialTests {
  @Test func aPartialMergeIsMarkedAndAWholeOneIsNot() throws {
    try withTemporaryDirectory { directory in
      let sweep = SweepResumeTests.arguments
      for index in 1...3 {
        #expect(syncsim(sweep + ["--shard", "\(index)/3", "--out", directory + "/\(index)"]).code == 0)
      }
      let out = directory + "/merged"
      let refused = syncsim(["merge", directory + "/1", directory + "/3", "--out", out])
      #expect(refused.code == 65 && refused.err.contains("merge --partial"), "\(refused.err)")
      #expect(!FileManager.default.fileExists(atPath: out))

      let partial = syncsim(["merge", directory + "/1", directory + "/3", "--out", out, "--partial"])
      #expect(partial.code == 0 && partial.err.contains("shards 2 of 3 are missing"), "\(partial.err)")
      let note = try String(contentsOfFile: out + "/partial.txt", encoding: .utf8)
      #expect(note.hasPrefix("partial merge: shards 2 of 3 missing\nruns of the whole sweep 12\n"), "\(note)")
      let package = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/datapackage.json")))
      let mark = (package as? [String: Any])?["partial"] as? [String: Any]
      #expect(mark?["missingShards"] as? [Int] == [2] && mark?["runs"] as? Int == 12)
      // The summary counts the runs it has: 8 of 12 (2 or 3 of each point's 3 replications).
      let summary = try String(contentsOfFile: out + "/sweep-summary.csv", encoding: .utf8)
      #expect(summary.split(separator: "\n").dropFirst().allSatisfy { $0.split(separator: ",")[5] != "3" })

      #expect(syncsim(["merge", directory + "/1", directory + "/2", directory + "/3", "--out", out]).code == 0)
      #expect(!FileManager.default.fileExists(atPath: out + "/partial.txt"))
      let whole = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/datapackage.json")))
      #expect((whole as? [String: Any])?["partial"] == nil)
    }
  }
}
