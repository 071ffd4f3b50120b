import Foundation
import SimMetrics
import SimScenario
import SimTestSupport
import Testing

@testable import SimScenario

/// Issue 53, item 6: `merge` of a run's shards trusts nothing in them. Every number of
/// `run-shard.txt` is range-checked and every sum kept within 64 bits; each per-row file is
/// checked against the shard's manifest (rows, bytes, digest) and its ids against the shard's
/// own; and a shard evaluates no expectation of the whole on its part.
@Suite(.serialized) struct RunShardIntegrityTests {
  /// Two shards of the households (latency, activities, objects) in `directory`/s1 and s2.
  func shards(_ directory: String) throws -> String {
    let data = try Data(contentsOf: URL(fileURLWithPath: packageRoot + "/Scenarios/households.json"))
    var scenario = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    scenario["outputs"] = ["summary", "latency", "activities", "objects"]
    // A tenth of the households: small enough to run in a moment.
    scenario["devices"] = (scenario["devices"] as? [[String: Any]] ?? []).map { entry in
      var entry = entry
      entry["count"] = 30
      return entry
    }
    // An expectation the whole run meets and a shard alone would not (half the writes).
    scenario["expect"] = [["metric": "writes", "min": 0]]
    let file = directory + "/h.json"
    try JSONSerialization.data(withJSONObject: scenario, options: [.sortedKeys]).write(to: URL(fileURLWithPath: file))
    let whole = syncsim("run", file, "--out", directory + "/whole")
    #expect(whole.code == 0, "\(whole.err)")
    let writes = try summaryValue(directory + "/whole", "writes")
    scenario["expect"] = [["metric": "writes", "min": writes]]
    try JSONSerialization.data(withJSONObject: scenario, options: [.sortedKeys]).write(to: URL(fileURLWithPath: file))
    #expect(syncsim("run", file, "--out", directory + "/whole").code == 0, "the whole meets it")
    for index in 1...2 {
      let shard = syncsim("run", file, "--shard", "\(index)/2", "--out", directory + "/s\(index)")
      #expect(shard.code == 0, "a shard judged the whole's expectation on its part: \(shard.out)")
      #expect(shard.out.contains("evaluated by `syncsim merge` on the whole run"), "\(shard.out)")
    }
    return file
  }

  func summaryValue(_ folder: String, _ column: String) throws -> Double {
    let table = try #require(CSVTable.parse(try String(contentsOfFile: folder + "/summary.csv", encoding: .utf8)))
    let index = try #require(table.columns.firstIndex(of: column))
    return try #require(Double(table.rows[0][index]))
  }

  /// A copy of shard 2 with `edit` applied, merged with shard 1.
  func merged(_ directory: String, _ name: String, edit: (String) throws -> Void) throws -> (code: Int32, err: String) {
    let copy = directory + "/" + name
    try? FileManager.default.removeItem(atPath: copy)
    try FileManager.default.copyItem(atPath: directory + "/s2", toPath: copy)
    try edit(copy)
    let result = syncsim("merge", directory + "/s1", copy, "--out", directory + "/m-" + name)
    #expect(!FileManager.default.fileExists(atPath: directory + "/m-" + name), "nothing written for \(name)")
    return (result.code, result.err)
  }

  /// Rewrites a file; `run-shard.txt` resealed with its digest made to match, as a forger
  /// would (what the range checks below must still refuse), unless `sealed` is false.
  func rewrite(_ path: String, sealed: Bool = true, _ change: (String) -> String) throws {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let changed = change(text)
    let written = sealed && path.hasSuffix("/run-shard.txt") ? SelfDigest.resealed(changed) : changed
    try written.write(toFile: path, atomically: false, encoding: .utf8)
  }

  /// The shard's manifest line of `name` made to match the file as it now is (a forger's copy).
  func reseal(_ folder: String, _ name: String) throws {
    let entry = try #require(RunShardFile.FileEntry.of(folder + "/" + name, name: name))
    try rewrite(folder + "/run-shard.txt") { text in
      text.split(separator: "\n").map { $0.hasPrefix("file.\(name) ") ? Substring(entry.line) : $0 }
        .joined(separator: "\n") + "\n"
    }
  }

  @Test func theWholeMergesAndItsExpectationsAreJudgedThere() throws {
    try withTemporaryDirectory { directory in
      _ = try shards(directory)
      let merge = syncsim("merge", directory + "/s1", directory + "/s2", "--out", directory + "/m")
      #expect(merge.code == 0, "\(merge.err)")
      for name in ["summary.csv", "latency.csv", "activities.csv", "objects.csv"] {
        #expect(
          try String(contentsOfFile: directory + "/m/" + name, encoding: .utf8)
            == (try String(contentsOfFile: directory + "/whole/" + name, encoding: .utf8)), "\(name)")
      }
    }
  }

  @Test func aCutOrEditedFileIsRefusedNamingTheShardAndFile() throws {
    try withTemporaryDirectory { directory in
      _ = try shards(directory)
      let cut = try merged(directory, "cut") { copy in
        let path = copy + "/latency.csv"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
      }
      #expect(cut.code == 65 && cut.err.contains("cut/latency.csv") && cut.err.contains("cut short"), "\(cut.err)")
      let deleted = try merged(directory, "deleted") { copy in
        try rewrite(copy + "/activities.csv") { text in
          var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
          lines.remove(at: 3)
          return lines.joined(separator: "\n")
        }
      }
      #expect(deleted.code == 65 && deleted.err.contains("deleted/activities.csv"), "\(deleted.err)")
      let unlisted = try merged(directory, "unlisted") { copy in
        try rewrite(copy + "/run-shard.txt") { $0.split(separator: "\n").filter { !$0.hasPrefix("file.") }.joined(separator: "\n") + "\n" }
      }
      #expect(unlisted.code == 65 && unlisted.err.contains("not in the shard's manifest"), "\(unlisted.err)")
    }
  }

  /// Issue 71, item 4: an in-range edit of `run-shard.txt` (`lastStoreChangeAt + 1`, a longest
  /// export of 2^62) merged silently; its own digest now finds it.
  @Test func anInRangeEditOfTheShardsFileIsRefusedByItsDigest() throws {
    try withTemporaryDirectory { directory in
      _ = try shards(directory)
      for (name, key) in [("store", "lastStoreChangeAt "), ("longest", "longest ")] {
        let edited = try merged(directory, name) { copy in
          try rewrite(copy + "/run-shard.txt", sealed: false) { text in
            text.split(separator: "\n").map { line -> Substring in
              guard line.hasPrefix(key) else { return line }
              return key == "longest " ? "longest exports 1 4611686018427387904 imports 1 1" : "lastStoreChangeAt 1"
            }.joined(separator: "\n") + "\n"
          }
        }
        #expect(edited.code == 65 && edited.err.contains("\(name)/run-shard.txt: its digest line does not match"),
          "\(name): \(edited.err)")
      }
    }
  }

  @Test func idsAndNumbersOutOfRangeAreRefusedEvenWhenResealed() throws {
    try withTemporaryDirectory { directory in
      _ = try shards(directory)
      // A write id near Int.max, with the manifest made to match: the id check finds it.
      let id = try merged(directory, "id") { copy in
        try rewrite(copy + "/latency.csv") { text in
          var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
          let header = lines[0].split(separator: ",").map(String.init)
          let column = header.firstIndex(of: "write")!
          var fields = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
          fields[column] = "9223372036854775807"
          lines[2] = fields.joined(separator: ",")
          return lines.joined(separator: "\n")
        }
        try reseal(copy, "latency.csv")
      }
      #expect(id.code == 65 && id.err.contains("line 3: write 9223372036854775807 is not an id"), "\(id.err)")
      // A latency value outside its own range (read through an index computed from it before).
      let outside = try merged(directory, "outside") { copy in
        try rewrite(copy + "/run-shard.txt") { text in
          text.split(separator: "\n").map { line in
            line.hasPrefix("latency.range ") ? "latency.range 1 2" : line
          }.joined(separator: "\n") + "\n"
        }
      }
      #expect(outside.code == 65 && outside.err.contains("outside/run-shard.txt: latency"), "\(outside.err)")
      // A counter near Int64.max: the sum would overflow.
      let counter = try merged(directory, "counter") { copy in
        try rewrite(copy + "/run-shard.txt") { text in
          text.split(separator: "\n").map { $0.hasPrefix("events ") ? "events 9223372036854775000" : $0 }
            .joined(separator: "\n") + "\n"
        }
      }
      #expect(counter.code == 65 && counter.err.contains("line events adds up past 64 bits"), "\(counter.err)")
      #expect(counter.err.contains("counter/run-shard.txt"), "\(counter.err)")
      // A negative count, a histogram whose counts are not its count, a part range past Int.
      for (name, from, to) in [
        ("negative", "pushes ", "pushes -1 "), ("parts", "parts ", "parts -9223372036854775807 "),
      ] {
        let result = try merged(directory, name) { copy in
          try rewrite(copy + "/run-shard.txt") { text in
            text.split(separator: "\n").map { $0.hasPrefix(from) ? Substring(to) + $0.dropFirst(from.count) : $0 }
              .joined(separator: "\n") + "\n"
          }
        }
        #expect(result.code == 65, "\(name): \(result.err)")
      }
    }
  }
}
