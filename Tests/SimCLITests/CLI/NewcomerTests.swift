import Foundation
import SimScenario
import SimTestSupport
import Testing

@testable import SimCLI

/// What a newcomer meets first: help, hints, the schema line, validate on the library, check by
/// name, JUnit for CI and shell completion.
@Suite struct NewcomerTests {
  static let commands = [
    "run", "validate", "check", "sweep", "merge", "compare", "report", "schema", "bench", "swarm", "completion",
  ]

  @Test func everyCommandTakesDashHAndHelpCommand() {
    for command in Self.commands {
      for arguments in [[command, "-h"], [command, "--help"], ["help", command]] {
        let result = syncsim(arguments)
        #expect(result.code == 0, "\(arguments): \(result.err)")
        #expect(result.out.hasPrefix("usage: syncsim \(command)"), "\(arguments): \(result.out.prefix(60))")
      }
    }
    #expect(syncsim(["help"]).out.contains("commands:"))
    #expect(syncsim(["help", "nosuch"]).code == 64)
    let unknownFlag = syncsim(["run", "-x"])
    #expect(unknownFlag.code == 64 && unknownFlag.err.contains("unknown option -x"))
  }

  @Test func aScenarioMayCarryItsSchemaLine() throws {
    let good = #"{"$schema": "schema.json", "version": 1, "devices": [{"name": "a"}]}"#
    #expect((try? ScenarioDecoder.decode(Array(good.utf8), file: "s.json")) != nil)
    let bad = #"{"$schema": 3, "version": 1, "devices": [{"name": "a"}]}"#
    #expect(throws: ScenarioProblems.self) { try ScenarioDecoder.decode(Array(bad.utf8), file: "s.json") }
  }

  @Test func theReadmesStrictGlobPasses() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/Scenarios")
      .filter { $0.hasSuffix(".json") }.sorted().map { packageRoot + "/Scenarios/" + $0 }
    #expect(files.contains { $0.hasSuffix("/schema.json") })
    let result = syncsim(["validate", "--strict"] + files)
    #expect(result.code == 0, "\(result.err)")
    #expect(result.out.contains("schema.json: skipped"))
    #expect(result.err.contains("advice: each many-to-many link"))
  }

  @Test func aScenariosOwnSweepIsValidatedWithDidYouMean() throws {
    try withTemporaryDirectory { directory in
      let file = directory + "/s.json"
      try #"""
      {"version": 1, "devices": [{"name": "a"}, {"name": "b"}],
       "sweep": {"factors": [{"path": "push.dropProbabilty", "values": [0, 0.5]},
                             {"path": "push.coalescingWindow", "values": ["1s", "-2s"]}]}}
      """#.write(toFile: file, atomically: true, encoding: .utf8)
      let result = syncsim(["validate", "--strict", file])
      #expect(result.code == 65)
      #expect(
        result.err.contains(
          #"sweep.factors[0].path: push.dropProbabilty: unknown key "dropProbabilty" (did you mean "dropProbability"?)"#
        ))
      #expect(
        result.err.contains("sweep.factors[1].values: value -2s: push.coalescingWindow: -2s must be zero or more"),
        "\(result.err)")
    }
  }

  static func problems(_ text: String) -> [ScenarioProblem] {
    do {
      return try ScenarioDecoder.decode(Array(text.utf8), file: "h.json").1
    } catch {
      return error.problems
    }
  }

  @Test func hintsSayWhatWasMeant() {
    let median = Self.problems(
      #"{"version": 1, "devices": [{"name": "a"}], "expect": [{"metric": "latency.median", "max": 5}]}"#)
    #expect(median.contains { $0.hint == #"did you mean "latency.p50"?"# }, "\(median)")
    let member = Self.problems(
      #"{"version": 1, "devices": [{"name": "phone", "count": 3}], "timeline": [{"at": 1, "devices": "phone#5", "action": "plug"}]}"#
    )
    #expect(member.contains { $0.hint == #"group "phone" has 3 members: "phone#0" to "phone#2""# }, "\(member)")
    let store = Self.problems(
      #"{"version": 1, "devices": [{"name": "a"}], "timeline": [{"at": 1, "devices": "a", "action": {"edit": "insert", "store": 0}}]}"#
    )
    #expect(
      store.contains { $0.path == "timeline[0].action.store" && $0.message.contains("belongs inside the edit object") })
    let over = Self.problems(
      #"{"version": 1, "devices": [{"name": "a"}], "timeline": [{"at": 1, "devices": "a", "action": {"bulkInsert": {"count": 5, "saves": "one", "over": "2m"}}}]}"#
    )
    #expect(over.contains { $0.severity == .warning && $0.path == "timeline[0].action.bulkInsert.over" })
    let set = syncsim(["sweep", packageRoot + "/Scenarios/quickstart.json", "--set", "push.dropProbability", "0,1"])
    #expect(set.code == 64)
    #expect(
      set.err.contains(
        #"--set takes PATH=VALUES joined by '=': got "push.dropProbability" (did you mean --set push.dropProbability=0,1?)"#
      ))
  }

  @Test func checkTakesLibraryNamesAndSaysWhenOnlyAnExpectationChanged() throws {
    #expect(
      CheckCommand.resolveLibraryName("quickstart", in: packageRoot) == packageRoot + "/Scenarios/quickstart.json")
    #expect(
      CheckCommand.resolveLibraryName("quickstart.json", in: packageRoot) == packageRoot + "/Scenarios/quickstart.json")
    #expect(CheckCommand.resolveLibraryName("nosuch", in: packageRoot) == "nosuch")
    try withTemporaryDirectory { directory in
      let original = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
      let file = directory + "/quickstart.json"
      try original.write(toFile: file, atomically: true, encoding: .utf8)
      #expect(syncsim(["check", file, "--baseline", directory + "/r", "--update"]).code == 0)
      #expect(syncsim(["check", file, "--baseline", directory + "/r"]).code == 0)
      let edited = original.replacingOccurrences(of: #""max": "10s""#, with: #""max": "12s""#)
      #expect(edited != original)
      try edited.write(toFile: file, atomically: true, encoding: .utf8)
      let result = syncsim(["check", file, "--baseline", directory + "/r"])
      #expect(result.code == 1)
      #expect(result.out.contains("the run did not (same fingerprint and metrics)"), "\(result.out)")
      #expect(result.out.contains("results are unaffected"))
      #expect(result.out.contains("latency.p50 ≤ 12.00s"))
    }
  }

  @Test func theJUnitReportIsValidForJenkinsWithErrorsAndTimes() throws {
    try withTemporaryDirectory { directory in
      let bad = directory + "/bad.json"
      try #"{"version": 1}"#.write(toFile: bad, atomically: true, encoding: .utf8)
      let report = directory + "/junit.xml"
      let result = syncsim([
        "check", packageRoot + "/Scenarios/quickstart.json", bad, "--baseline", packageRoot + "/Results", "--junit",
        report,
      ])
      #expect(result.code == 1)
      let xml = try String(contentsOfFile: report, encoding: .utf8)
      #expect(xml.contains(#"tests="2" failures="0" errors="1""#))
      #expect(xml.contains(#"<testcase classname="syncsim.check" name="quickstart" time=""#))
      #expect(xml.contains("<error message="))
      // The structure, checked with the toolchain alone (the README promises nothing else).
      #expect(JUnitValidator.problems(xml).isEmpty, "\(JUnitValidator.problems(xml))")
      #expect(
        !JUnitValidator.problems(
          xml.replacingOccurrences(of: "<testcase ", with: "<testcase><bogus/></testcase><testcase ")
        ).isEmpty)
      // Against the schema itself where xmllint is installed (CI installs it; a clean machine may not).
      if try run("/usr/bin/env", ["sh", "-c", "command -v xmllint"]).status == 0 {
        let lint = try run(
          "/usr/bin/env", ["xmllint", "-noout", "-schema", packageRoot + "/Tests/Fixtures/junit-jenkins.xsd", report])
        #expect(lint.status == 0, "xmllint (Debian: libxml2-utils): \(lint.output)")
      } else {
        print("note: xmllint is not installed; the JUnit report was checked by JUnitValidator only")
      }
    }
  }

  @Test func completionScriptsParse() throws {
    try withTemporaryDirectory { directory in
      for (shell, check) in [("bash", ["bash", "-n"]), ("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"])] {
        let result = syncsim(["completion", shell])
        #expect(result.code == 0)
        #expect(result.out.contains("latency.p50") && result.out.contains("sweep"))
        let file = directory + "/completion." + shell
        try result.out.write(toFile: file, atomically: true, encoding: .utf8)
        let available = try run("/usr/bin/env", ["sh", "-c", "command -v \(check[0])"]).status == 0
        if shell == "bash" || available {
          let parsed = try run("/usr/bin/env", check + [file])
          #expect(parsed.status == 0, "\(shell): \(parsed.output)")
        }
      }
    }
  }

  /// Every option a command's help names is offered by the completion (issue 19's `--jobs`,
  /// `--batch-devices` and `--one-kernel` were not, at first).
  @Test func completionOffersEveryOptionTheHelpNames() {
    let script = syncsim(["completion", "bash"]).out
    for command in [
      "run", "validate", "check", "sweep", "merge", "compare", "sensitivity", "report", "trace", "fit", "bench", "swarm",
    ] {
      // merge's help names `sweep --shard` and `run --shard` in its prose, not as options of its own.
      let help = syncsim([command, "--help"]).out.replacingOccurrences(of: "sweep --shard", with: "")
        .replacingOccurrences(of: "run --shard", with: "")
      let lines = script.split(separator: "\n").filter { $0.contains("\(command))") }
      let options = Set(
        help.split(whereSeparator: { !($0.isLetter || $0 == "-") }).filter { $0.hasPrefix("--") && $0.count > 2 })
      #expect(!options.isEmpty, "\(command)")
      for option in options {
        #expect(
          lines.contains { $0.contains(" \(option) ") || $0.contains("(\(option) ") || $0.contains(" \(option))") },
          "\(command) \(option)")
      }
    }
  }

  func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}

/// Issue 38, item 9: the README's worked example is what `run` prints (it showed a stale
/// fingerprint); every line but the wall time and the results folder must match.
@Suite struct WorkedExampleTests {
  @Test func theReadmesWorkedExampleIsWhatRunPrints() throws {
    let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
    let start = try #require(readme.range(of: "$ swift run -c release syncsim run Scenarios/quickstart.json\n"))
    let block = readme[start.upperBound...].prefix { $0 != "`" }
    let shown = block.split(separator: "\n").map(String.init)
    withTemporaryDirectory { directory in
      let result = syncsim(["run", packageRoot + "/Scenarios/quickstart.json", "--out", directory + "/quickstart"])
      #expect(result.code == 0)
      let printed = result.out.split(separator: "\n").map(String.init)
      #expect(printed.count == shown.count, "\(printed)")
      for (readmeLine, line) in zip(shown, printed) where !line.hasPrefix("results") {
        if line.hasPrefix("simulated") {
          #expect(readmeLine.components(separatedBy: "   wall")[0] == line.components(separatedBy: "   wall")[0])
        } else {
          #expect(readmeLine == line)
        }
      }
    }
  }
}
