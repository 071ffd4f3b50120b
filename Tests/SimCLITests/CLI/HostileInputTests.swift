import Foundation
import SimScenario
@testable import SimCLI
import SimTestSupport
import Testing

/// Inputs that crashed, were refused wrongly, or echoed raw bytes (issues 19 and 24, in part).
@Suite struct HostileInputTests {
  static func problems(_ bytes: [UInt8]) -> [ScenarioProblem] {
    do { return try ScenarioDecoder.decode(bytes, file: "h.json").1 } catch { return error.problems }
  }

  static func problems(_ text: String) -> [ScenarioProblem] { problems(Array(text.utf8)) }

  @Test func inheritanceCyclesAreRefusedNotCrashed() throws {
    let selfParent =
      #"{"version":1,"model":{"entities":[{"name":"A","parent":"A","attributes":[{"name":"t","type":"String"}]}]},"#
      + #""devices":[{"name":"a"},{"name":"b"}],"workloads":[{"devices":"all","editsPerHour":60}]}"#
    #expect(Self.problems(selfParent).contains { $0.message == "inheritance cycle: A → A" })
    let twoCycle =
      #"{"version":1,"model":{"entities":[{"name":"A","parent":"B"},{"name":"B","parent":"A","#
      + #""attributes":[{"name":"t","type":"String"}]}]},"devices":[{"name":"a"}]}"#
    #expect(
      Self.problems(twoCycle).contains {
        $0.path == "model.entities[0].parent" && $0.message == "inheritance cycle: A → B → A"
      })
    try withTemporaryDirectory { directory in
      let file = directory + "/c.json"
      try selfParent.write(toFile: file, atomically: true, encoding: .utf8)
      #expect(syncsim(["run", file, "--out", directory + "/out"]).code == 65)
      #expect(!FileManager.default.fileExists(atPath: directory + "/out"))
      #expect(syncsim(["schema", "records", file]).code == 65)
    }
  }

  @Test func theZoneLimitIsPerDatabaseNotPerApp() {
    let fleet = #"{"version": 1, "devices": [{"name": "a", "count": 1500, "account": "perDevice"}]}"#
    #expect(!Self.problems(fleet).contains { $0.severity == .error }, "\(Self.problems(fleet).prefix(2))")
    // One account owning 1,001 shares: its private database would hold 1,002 zones.
    let shares = (1...1001).map {
      #"{"name": "p\#($0)", "account": \#($0), "stores": [{"shared": {"owner": 0, "participants": [\#($0)]}}]}"#
    }
    let owner = #"{"name": "owner", "account": 0, "stores": ["private"]}"#
    let many = #"{"version": 1, "devices": ["# + ([owner] + shares).joined(separator: ", ") + "]}"
    let problem = Self.problems(many).first { $0.message.contains("at most 1,000 record zones") }
    #expect(
      problem?.message.contains("account 0's private database would hold 1002") == true,
      "\(String(describing: problem))")
  }

  @Test func sizeChecksApplyOnlyToFilesThatAreWritten() {
    let base = #"{"version": 1, "duration": "1d", "sampleInterval": "1s", "devices": [{"name": "a", "count": 100}]"#
    #expect(Self.problems(base + "}").contains { $0.path == "sampleInterval" && $0.severity == .error })
    #expect(!Self.problems(base + #", "outputs": ["summary", "latency"]}"#).contains { $0.severity == .error })
  }

  @Test func controlCharactersAreEscapedAndInvalidUTF8IsRefused() {
    let escape = Self.problems(
      #"{"version": 1, "devices": [{"name": "a"}], "workloads": [{"devices": "\u001b[2Jok\u0007", "editsPerHour": 1}]}"#
    )
    let text = escape.map(\.description).joined()
    #expect(text.contains("\\u{1B}[2Jok\\u{7}"))
    #expect(!text.unicodeScalars.contains { $0.value < 0x20 })
    var bytes = Array(
      #"{"version": 1, "devices": [{"name": "a"}], "workloads": [{"devices": "X", "editsPerHour": 1}]}"#.utf8)
    let at = bytes.firstIndex(of: UInt8(ascii: "X"))!
    bytes[at] = 0xFF
    #expect(Self.problems(bytes).first?.message == "invalid UTF-8 at byte \(at)")
  }

  @Test func namesAreCheckedScalarByScalarAndByLength() {
    for name in ["x\u{0D4E}/..", "x\u{0D4E}/y", "a/b", ".hidden", String(repeating: "n", count: 256)] {
      let problems = Self.problems(#"{"version": 1, "name": "\#(name)", "devices": [{"name": "a"}]}"#)
      #expect(problems.contains { $0.path == "name" && $0.severity == .error }, "\(name.prefix(12))")
    }
    #expect(
      !Self.problems(#"{"version": 1, "name": "café-2.0_x", "devices": [{"name": "a"}]}"#).contains {
        $0.severity == .error
      })
  }

  @Test func argumentMistakesAreUsageErrors() {
    let quickstart = packageRoot + "/Scenarios/quickstart.json"
    #expect(syncsim(["run", quickstart, "--out="]).code == 64)
    #expect(syncsim(["run", quickstart, "--duration", "0.5ns"]).code == 64)
    #expect(syncsim(["run", "-x"]).code == 64)
    for bad in [
      ["--seeds", "x..y"], ["--set", "push.=1"], ["--exclude", "nosuch=1"], ["--jobs", "0"], ["--shard", "3/2"],
    ] {
      #expect(syncsim(["sweep", quickstart] + bad).code == 64, "\(bad)")
    }
  }

  @Test func resultFilesNeverFollowAPlantedLinkAndStaleTemporariesGo() throws {
    try withTemporaryDirectory { directory in
      let out = directory + "/out"
      try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
      let victim = directory + "/victim.txt"
      try "keep me".write(toFile: victim, atomically: true, encoding: .utf8)
      // The names the old writer used, and ones it would have used for other files: all links.
      let pid = ProcessInfo.processInfo.processIdentifier
      for name in ["summary.csv", "latency.csv"] {
        try FileManager.default.createSymbolicLink(atPath: out + "/.\(name).tmp-\(pid)", withDestinationPath: victim)
      }
      // A temporary left by a process that has ended (killed mid-write).
      let ended = Process()
      ended.executableURL = URL(fileURLWithPath: "/bin/true")
      try ended.run()
      ended.waitUntilExit()
      let stale = out + "/" + ScenarioFile.temporaryPrefix("summary.csv", pid: ended.processIdentifier) + "abc"
      try "half".write(toFile: stale, atomically: true, encoding: .utf8)
      let result = syncsim(["run", packageRoot + "/Scenarios/quickstart.json", "--out", out])
      #expect(result.code == 0, "\(result.err)")
      #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
      let attributes = try FileManager.default.attributesOfItem(atPath: out + "/summary.csv")
      #expect(attributes[.type] as? FileAttributeType == .typeRegular)
      #expect(!FileManager.default.fileExists(atPath: stale))
      let left = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.contains(".tmp-") }
      #expect(left.allSatisfy { $0.hasSuffix("-\(pid)") }, "\(left)")  // only the planted links remain
    }
  }

  @Test func largeAndSpecialFilesAreRefusedBeforeTheyAreRead() throws {
    try withTemporaryDirectory { directory in
      let big = directory + "/big.json"
      #expect(FileManager.default.createFile(atPath: big, contents: nil))
      let handle = try #require(FileHandle(forWritingAtPath: big))
      try handle.truncate(atOffset: 3 << 30)  // a sparse 3 GiB file: read, it would take 3 GiB
      try handle.close()
      let result = syncsim(["validate", big])
      #expect(result.code == 65)
      #expect(result.err.contains("over the limit of 16777216"))
      let special = syncsim(["validate", "/dev/zero"])
      #expect(special.code == 65 && special.err.contains("not a regular file"))
      #expect(syncsim(["validate", directory]).err.contains("not a regular file"))
    }
  }

  @Test func aHugeUnknownKeyGetsNoSlowSuggestion() {
    let key = String(repeating: "k", count: 1_000_000)
    let problems = Self.problems(#"{"version": 1, "devices": [{"name": "a"}], ""# + key + #"": 1}"#)
    let unknown = problems.first { $0.message.hasPrefix("unknown key") }
    #expect(unknown?.hint?.hasPrefix("known keys:") == true)
  }

  @Test func aFailedRenameLeavesThePreviousSetWhole() throws {
    try withTemporaryDirectory { directory in
      let out = directory + "/out"
      try FileManager.default.createDirectory(atPath: out + "/timeline.csv", withIntermediateDirectories: true)
      try "x".write(toFile: out + "/timeline.csv/keep", atomically: true, encoding: .utf8)
      for name in ["summary.csv", "latency.csv", "activities.csv"] {
        try "old \(name)".write(toFile: out + "/" + name, atomically: true, encoding: .utf8)
      }
      let result = syncsim(["run", packageRoot + "/Scenarios/quickstart.json", "--out", out])
      #expect(result.code == 73)
      for name in ["summary.csv", "latency.csv", "activities.csv"] {
        #expect(try String(contentsOfFile: out + "/" + name, encoding: .utf8) == "old \(name)")
      }
      let left = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".") }
      #expect(left.isEmpty, "\(left)")
    }
  }
}
