import Foundation
import SimTestSupport
import Testing

/// Issue 59, item 2: a merge of a run's shards that lacks some names each with the command that
/// runs it (the shards keep their command line in `run-shard.txt`); `merge --partial` writes
/// what is there, marked as partial, and a later whole merge into the same folder leaves no mark.
@Suite struct RunShardGapTests {
  @Test func aMergeLackingAShardNamesItsCommandAndPartialSaysWhatIsMissing() throws {
    try withTemporaryDirectory { directory in
      let households = packageRoot + "/Scenarios/households.json"
      let shards = directory + "/shards"
      // Options that change no result stay out of the command merge prints.
      for index in [1, 3] {
        let result = syncsim(
          "run", households, "--duration", "1h", "--shard", "\(index)/3", "--jobs", "1", "--batch-devices", "7",
          "--checkpoint-seconds", "9", "--out", "\(shards)/\(index)")
        #expect(result.code == 0, "\(result.err)")
      }
      let command = "syncsim run \(households) --duration 1h"
      #expect(try String(contentsOfFile: shards + "/1/run-shard.txt", encoding: .utf8).contains("\ncommand \(command)\n"))

      let merged = directory + "/merged"
      let refused = syncsim("merge", shards + "/1", shards + "/3", "--out", merged)
      #expect(refused.code == 65)
      #expect(refused.err.contains("error: missing shards: 2/3\n  run shard 2 with: \(command) --shard 2/3 --out \(shards)/2\n"), "\(refused.err)")
      #expect(!FileManager.default.fileExists(atPath: merged))

      let partial = syncsim("merge", "--partial", shards + "/1", shards + "/3", "--out", merged)
      #expect(partial.code == 0, "\(partial.err)")
      #expect(partial.err.contains("warning: a partial merge: shards 2 of 3 are missing"), "\(partial.err)")
      let note = try String(contentsOfFile: merged + "/partial.txt", encoding: .utf8)
      #expect(note.hasPrefix("partial merge: shards 2 of 3 missing\nparts of the whole run 300\nparts merged 200\nrows "), "\(note)")
      let package = try String(contentsOfFile: merged + "/datapackage.json", encoding: .utf8)
      #expect(package.hasPrefix("{\n  \"partial\": {\"shards\": 3, \"missingShards\": [2], \"parts\": 300, \"partsMerged\": 200},"))
      #expect((try? JSONSerialization.jsonObject(with: Data(package.utf8))) != nil, "still JSON")

      // The command merge named, run: the whole merge replaces the partial one and its marks.
      #expect(syncsim("run", households, "--duration", "1h", "--shard", "2/3", "--out", shards + "/2").code == 0)
      let whole = syncsim("merge", shards + "/1", shards + "/2", shards + "/3", "--out", merged)
      #expect(whole.code == 0 || whole.code == 1, "\(whole.err)")
      #expect(!FileManager.default.fileExists(atPath: merged + "/partial.txt"))
      #expect(try !String(contentsOfFile: merged + "/datapackage.json", encoding: .utf8).contains("\"partial\""))
    }
  }
}
