import Foundation
import SimScenario
import SimTestSupport
import Testing

@testable import SimCLI

/// Issue 24: what a run will cost is known before it runs and refused over the limits; result
/// files are streamed and swapped in as a whole set.
@Suite struct LimitsTests {
  static let quickstart = packageRoot + "/Scenarios/quickstart.json"

  func write(_ text: String, to directory: String, _ name: String = "s.json") throws -> String {
    let path = directory + "/" + name
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func theEstimateMatchesWhatARunMakesAndRefusesOverTheLimits() throws {
    // Counting: 10 devices of one account, 6 edits an hour for 2 h, 30 % inserts.
    let scenario = try ScenarioDecoder.decode(
      Array(
        #"{"version":1,"duration":"2h","devices":[{"name":"d","count":10}],"workloads":[{"devices":"all","editsPerHour":6}]}"#
          .utf8), file: "t.json"
    ).0
    let estimate = RunEstimate(scenario)
    #expect(estimate.writes == 120)
    #expect(estimate.rows == 120 * 9)
    #expect(abs(estimate.heldRecords - 10 * 120 * 0.3) < 1e-9)

    try withTemporaryDirectory { directory in
      // 1,000 devices on one account writing every file: 6 M latency rows, about 3 GB of files.
      let all = try write(
        #"{"version":1,"duration":"1h","devices":[{"name":"d","count":1000}],"workloads":[{"devices":"all","editsPerHour":6}]}"#,
        to: directory)
      let refused = syncsim(["validate", all])
      #expect(refused.code == 65)
      #expect(refused.err.contains("outputs: the run would write about"), "\(refused.err)")
      #expect(refused.err.contains("over the limit of 2 GB") && refused.err.contains("--accept-large"))
      #expect(syncsim(["validate", all, "--accept-large"]).code == 0)
      let run = syncsim(["run", all, "--out", directory + "/o"])
      #expect(run.code == 65 && !FileManager.default.fileExists(atPath: directory + "/o"))
      // A longer --duration is a new estimate: ten years of quickstart are refused before running.
      let long = syncsim(["run", Self.quickstart, "--duration", "3650d", "--out", directory + "/q"])
      #expect(long.code == 65 && long.err.contains("the run would"), "\(long.err)")
      #expect(!FileManager.default.fileExists(atPath: directory + "/q"))
      // validate --estimate says what it would cost.
      let said = syncsim(["validate", "--estimate", Self.quickstart])
      #expect(said.out.contains("estimate ~120 writes, 120 rows"), "\(said.out)")
    }
  }

  /// Issue 19: a fleet of independent accounts is estimated part by part: the latencies it
  /// keeps plus a few live parts, and the event and edit limits per part.
  @Test func aFleetOfIndependentAccountsIsEstimatedPartByPart() throws {
    func fleet(
      _ perGroup: Int, hours: Int, rate: Int, outputs: String = #"["summary"]"#, accept: Bool = false
    ) throws
      -> Scenario
    {
      try ScenarioDecoder.decode(
        Array(
          (#"{"version":1,"duration":"\#(hours)h","devices":[{"name":"a","count":\#(perGroup),"account":"perDevice"},"#
            + #"{"name":"b","count":\#(perGroup),"account":"perDevice"}],"#
            + #""workloads":[{"devices":"all","editsPerHour":\#(rate)}],"outputs":\#(outputs)}"#).utf8), file: "f.json",
        acceptLarge: accept
      ).0
    }
    // The 100,000-device fleet of a day: 14.4 M rows, the first 4,194,304 latencies kept (8 bytes
    // each) and the rest counted in a histogram, the decoded devices, and 8 live parts of two
    // devices; within every limit (it was estimated at 6.5 GB and refused).
    let large = RunEstimate(try fleet(50_000, hours: 24, rate: 6))
    #expect(large.parts == 50_000)
    #expect(abs(large.rows - 14_400_000) < 1)
    #expect(
      large.memoryBytes > 8 * 4_194_304 + 400 * 100_000 && large.memoryBytes < 8 * 14_400_000,
      "\(large.memoryBytes)")
    #expect(large.largestPartEvents < 5_000 && large.events > 100_000_000)
    #expect(large.problems(file: "f.json").isEmpty)
    // Writing latency.csv keeps every part's rows until the file is written: refused.
    #expect(throws: ScenarioProblems.self) { try fleet(50_000, hours: 24, rate: 6, outputs: #"["summary","latency"]"#) }
    // The event limit holds per part; all the parts together are limited to 2 G events.
    // One device nudged every second for ten years: about 380 M events in one part.
    let nudged = try ScenarioDecoder.decode(
      Array(
        (#"{"version":1,"duration":"3650d","devices":[{"name":"a"}],"#
          + #""timeline":[{"at":"0s","devices":"all","action":{"nudge":{"every":"1s"}}}]}"#).utf8), file: "f.json",
      acceptLarge: true
    ).0
    let busy = RunEstimate(nudged)
    #expect(busy.parts == 1 && busy.problems(file: "f.json").contains { $0.message.contains("the run would process") })
    let long = RunEstimate(try fleet(50_000, hours: 240, rate: 8, accept: true))
    #expect(long.largestPartEvents < Double(RunEstimate.Limits.events))
    #expect(long.problems(file: "f.json").contains { $0.message.contains("events in all") })
    // The edit limit: 20 M in one part (coupled accounts), 200 M in all.
    let problems = { (text: String) -> [String] in
      do throws(ScenarioProblems) {
        _ = try ScenarioDecoder.decode(Array(text.utf8), file: "f.json")
        return []
      } catch {
        return error.problems.map { $0.message }
      }
    }
    let perPart = problems(
      #"{"version":1,"duration":"3650d","devices":[{"name":"a","count":2}],"workloads":[{"devices":"all","editsPerHour":1000}]}"#
    )
    #expect(perPart.contains { $0.contains("edits in all is over the limit of 20000000") }, "\(perPart)")
    let inAll = problems(
      #"{"version":1,"duration":"3650d","devices":[{"name":"a","count":2000,"account":"perDevice"}],"workloads":[{"devices":"all","editsPerHour":100}]}"#
    )
    #expect(inAll.contains { $0.contains("edits in all is over the limit of 200000000") }, "\(inAll)")
    let fine = problems(
      #"{"version":1,"duration":"3650d","devices":[{"name":"a","count":20,"account":"perDevice"}],"workloads":[{"devices":"all","editsPerHour":100}]}"#
    )
    #expect(!fine.contains { $0.contains("edits") }, "\(fine)")
  }

  @Test func bulkInsertsCountTowardTheEditLimit() throws {
    try withTemporaryDirectory { directory in
      let actions = (0..<25).map { #"{"at":"\#($0)m","devices":"a","action":{"bulkInsert":{"count":1000000}}}"# }
      let path = try write(
        #"{"version":1,"devices":[{"name":"a"},{"name":"b"}],"timeline":["# + actions.joined(separator: ",") + "]}",
        to: directory)
      let result = syncsim(["validate", path])
      #expect(result.code == 65)
      #expect(result.err.contains("timeline: about 25000000 edits in all (25000000 of them bulk-inserted objects)"))
    }
  }

  @Test func streamedFilesAreTheBytesOfTheTablesAndTheSetIsSwappedWhole() throws {
    try withTemporaryDirectory { directory in
      let out = directory + "/out"
      #expect(syncsim(["run", Self.quickstart, "--out", out]).code == 0)
      let scenario = try ScenarioDecoder.decode(
        Array(try Data(contentsOf: URL(fileURLWithPath: Self.quickstart))), file: "q"
      ).0
      let report = ScenarioRunner.run(scenario)
      for (name, text) in report.files(version: SyncSimCommand.version, includeTrace: false) {
        #expect(try String(contentsOfFile: out + "/" + name, encoding: .utf8) == text, "\(name)")
      }
      #expect(report.latencyTable().text == (try String(contentsOfFile: out + "/latency.csv", encoding: .utf8)))
      // A second run into the same folder swaps the whole set: a file only the old set had goes.
      try "old".write(toFile: out + "/trace.csv", atomically: true, encoding: .utf8)
      let before = try FileManager.default.attributesOfItem(atPath: out)[.systemFileNumber] as? Int
      #expect(syncsim(["run", Self.quickstart, "--out", out]).code == 0)
      let after = try FileManager.default.attributesOfItem(atPath: out)[.systemFileNumber] as? Int
      #expect(before != after, "the folder was swapped in, not rewritten file by file")
      #expect(!FileManager.default.fileExists(atPath: out + "/trace.csv"))
      let hidden = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".") }
      #expect(hidden.isEmpty, "no staging folder is left: \(hidden)")
      // A folder with a file of the user's is never swapped: the file stays.
      try "mine".write(toFile: out + "/notes.txt", atomically: true, encoding: .utf8)
      #expect(syncsim(["run", Self.quickstart, "--out", out]).code == 0)
      #expect(try String(contentsOfFile: out + "/notes.txt", encoding: .utf8) == "mine")
      // A staging folder left by a killed process goes at the next write beside it.
      let ended = Process()
      ended.executableURL = URL(fileURLWithPath: "/bin/true")
      try ended.run()
      ended.waitUntilExit()
      let stale = directory + "/" + ScenarioFile.temporaryPrefix("out", pid: ended.processIdentifier) + "abc"
      try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: true)
      try "half".write(toFile: stale + "/latency.csv", atomically: true, encoding: .utf8)
      #expect(syncsim(["run", Self.quickstart, "--out", out]).code == 0)
      #expect(!FileManager.default.fileExists(atPath: stale))
    }
  }
}

/// Inputs that were slow or large for their size (issue 24): each now decodes in linear time and
/// bounded memory, and reports a bounded number of problems.
@Suite struct LinearInputTests {
  func problems(_ text: String) -> [ScenarioProblem] {
    do {
      return try ScenarioDecoder.decode(Array(text.utf8), file: "t.json").1
    } catch {
      return error.problems
    }
  }

  @Test func escapesDecodeToTheirTextAndDuplicateNamesAreStillFound() throws {
    let escaped = String(repeating: "\\u0041", count: 50_000) + "\\u00e9\\ud83d\\ude00\\n"
    let text = #"{"version": 1, "description": ""# + escaped + #"", "devices": [{"name": "a"}, {"name": "b"}]}"#
    let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "t.json").0
    #expect(scenario.description == String(repeating: "A", count: 50_000) + "é😀\n")
    let devices = (0..<5_000).map { #"{"name": "d\#($0)"}"# }.joined(separator: ",") + #", {"name": "d17"}"#
    let duplicate = problems(#"{"version": 1, "devices": ["# + devices + "]}")
    #expect(duplicate.contains { $0.path == "devices[5000].name" && $0.message.contains("used twice") })
  }

  @Test func problemsAreCappedAndTheRestCounted() {
    let entries = (0..<12_000).map { #"{"at": "\#($0)s", "devices": "nosuch", "action": "goOffline"}"# }
    let found = problems(
      #"{"version": 1, "duration": "4h", "devices": [{"name": "a"}, {"name": "b"}], "timeline": ["#
        + entries.joined(separator: ",") + "]}")
    #expect(found.count == 10_001)
    #expect(found.last?.message == "2000 more problems not listed (the first 10000 are)")
    #expect(found.last?.severity == .error)
  }

  @Test func aTimelineNamingEveryDeviceInEveryEntryIsBounded() {
    let entries = (0..<30).map { #"{"at": "\#($0)s", "devices": "all", "action": "goOffline"}"# }
    let found = problems(
      #"{"version": 1, "devices": [{"name": "d", "count": 100000}], "outputs": ["summary"], "timeline": ["#
        + entries.joined(separator: ",") + "]}")
    #expect(
      found.contains { $0.path == "timeline[20]" && $0.message.contains("over 2000000 devices in all") }, "\(found)")
  }
}
