import Foundation
import SimTestSupport
import Testing

@testable import SimCLI
@testable import SimMetrics
@testable import SimScenario

/// Output paths and result folders as a careless or hostile user gives them: refused with a
/// usage error, or written, never a trap; a clean-up never follows a link or removes what is not
/// its own.
@Suite struct OutputSafetyTests {
  @Test func theCurrentFolderAndFoldersAboveItAreRefusedAsOutput() throws {
    let here = FileManager.default.currentDirectoryPath
    for path in [".", "./", "./.", "..", "../", "/", here, here + "/", "", String(repeating: "x", count: 231)] {
      #expect(throws: UsageError.self, "\(path)") { try OutputPath.folder(path, option: "--out") }
    }
    let tooLong = syncsim(["run", ReportTests.quickstart, "--out", String(repeating: "y", count: 231)])
    #expect(tooLong.code == 64)
    #expect(tooLong.err.contains("a name of 231 bytes is over the limit of 200"))
    let dot = syncsim(["run", ReportTests.quickstart, "--out", "./."])
    #expect(dot.code == 64)
    #expect(dot.err.contains("is the current folder or one above it"))
    #expect(syncsim(["sweep", ReportTests.quickstart, "--out", "."]).code == 64)
    #expect(syncsim(["report", "Results/quickstart", "--out", "."]).code == 64)
    #expect(syncsim(["report", "Results/quickstart", "--out", "some/folder/"]).code == 64)
  }

  @Test func pathsAreSplitWithoutFoundationsOneCharacterTrap() {
    #expect(OutputPath.split("r") == (".", "r"))
    #expect(OutputPath.split("r/") == (".", "r"))
    #expect(OutputPath.split("a/b") == ("a", "b"))
    #expect(OutputPath.split("/b") == ("/", "b"))
    #expect(OutputPath.split("a//b//") == ("a/", "b"))
    #expect(OutputPath.join("a", "b") == "a/b")
    #expect(OutputPath.join("/", "b") == "/b")
  }

  /// Run as its own process in a folder of its own (changing this process's folder would move
  /// every other test's relative paths): `--out r` stopped with SIGILL before.
  @Test func aOneLetterOutputFolderIsWritten() throws {
    try withTemporaryDirectory { directory in
      let executable = packageRoot + "/.build/debug/syncsim"
      try #require(FileManager.default.isExecutableFile(atPath: executable), "swift test builds \(executable)")
      for arguments in [["run", ReportTests.quickstart, "--out", "r"], ["report", "r", "--out", "x"]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(arguments)")
      }
      #expect(FileManager.default.fileExists(atPath: directory + "/r/summary.csv"))
      #expect(FileManager.default.fileExists(atPath: directory + "/x"))
    }
  }

  @Test func removingAFolderSwappedForALinkRemovesOnlyTheLink() throws {
    try withTemporaryDirectory { directory in
      let victim = directory + "/victim"
      try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
      for name in ["summary.csv", "notes.txt"] {
        try "keep".write(toFile: victim + "/" + name, atomically: false, encoding: .utf8)
      }
      let link = directory + "/.out.tmp-1-abc"
      #expect(symlink(victim, link) == 0)
      ResultSetWriter.removeFolder(link)
      #expect(try FileManager.default.contentsOfDirectory(atPath: victim).sorted() == ["notes.txt", "summary.csv"])
      var status = stat()
      #expect(lstat(link, &status) != 0, "the link itself is removed")
    }
  }

  @Test func aFolderIsEmptiedOfResultFilesOnlyAndKeptWhenAnythingElseIsInIt() throws {
    try withTemporaryDirectory { directory in
      let staging = directory + "/.out.tmp-1-abc"
      try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
      for name in ["summary.csv", "latency.csv", ".summary.csv.tmp-12-x9", "mine.txt"] {
        try "x".write(toFile: staging + "/" + name, atomically: false, encoding: .utf8)
      }
      ResultSetWriter.removeFolder(staging)
      #expect(try FileManager.default.contentsOfDirectory(atPath: staging) == ["mine.txt"])
      try FileManager.default.removeItem(atPath: staging + "/mine.txt")
      try "x".write(toFile: staging + "/summary.csv", atomically: false, encoding: .utf8)
      ResultSetWriter.removeFolder(staging)
      #expect(!FileManager.default.fileExists(atPath: staging))
    }
  }

  @Test func staleCleanupRemovesOnlyTemporariesOfItsOwnShape() throws {
    try withTemporaryDirectory { directory in
      // A process id that no longer runs: a child that has exited and been reaped.
      let gone: Int32 = 2_000_000_000
      let ours = [
        ScenarioFile.temporaryPrefix("summary.csv", pid: gone) + "3k2j1h",
        ScenarioFile.temporaryPrefix("sweep.csv.previous", pid: gone) + "zz9",
      ]
      let theirs = [
        ".notes.tmp-draft", ".notes.tmp-\(gone)-Draft", "notes.tmp-\(gone)-abc", ".tmp-\(gone)-abc",
        ".x.tmp-\(gone)-abc-def", ".x.tmp-\(gone)-", "summary.csv",
        // The older shape, and a temporary of another host or PID namespace: never taken for dead.
        ".summary.csv.tmp-\(gone)-3k2j1h", ScenarioFile.temporaryPrefix("latency.csv", pid: gone, host: "zzzzzzzz") + "ab",
      ]
      for name in ours + theirs { try "x".write(toFile: directory + "/" + name, atomically: false, encoding: .utf8) }
      #expect(symlink(directory + "/summary.csv", directory + "/.link.tmp-\(gone)-abc") == 0)
      ScenarioFile.removeStaleTemporaries(in: directory)
      let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
      #expect(left == Set(theirs + [".link.tmp-\(gone)-abc"]))
    }
  }

  @Test func compareReadsASweepFileWhoseColumnsAreOutOfOrder() throws {
    try withTemporaryDirectory { directory in
      for side in ["a", "b"] {
        try FileManager.default.createDirectory(atPath: directory + "/" + side, withIntermediateDirectories: true)
        let text = "point,metric,value,scenario,seed\n0,latency.p50,4.5,q,1\n0,latency.p50,4.6,q,2\n"
        try text.write(toFile: directory + "/" + side + "/sweep.csv", atomically: false, encoding: .utf8)
      }
      let result = syncsim(["compare", directory + "/a", directory + "/b"])
      #expect(result.code == 0, "\(result.err)")
      #expect(result.out.contains("Holm-adjusted across the 1 tests"))
    }
  }

  @Test func bidirectionalControlsAreEscapedInMessages() {
    let text = ScenarioProblem.printable("name \u{202E}gnp.exe\u{202C} and \u{2066}x\u{2069} \u{200F}")
    #expect(text == "name \\u{202E}gnp.exe\\u{202C} and \\u{2066}x\\u{2069} \\u{200F}")
  }

  @Test func writeFailuresSayWhyInWords() {
    errno = ENOSPC
    let failure = OutputPath.failure(.fileWriteOutOfSpace, "/x/summary.csv")
    #expect(OutputPath.describe(failure) == "/x/summary.csv: No space left on device")
    errno = 0
    #expect(OutputPath.describe(OutputPath.failure(.fileWriteNoPermission, "/y")).hasPrefix("/y: permission denied"))
  }
}

/// Issue 38, item 9 (small): `help -h` and did-you-mean for commands.
@Suite struct HelpTests {
  @Test func helpTakesDashHAndMisspeltCommandsGetASuggestion() {
    let help = syncsim(["help", "-h"])
    #expect(help.code == 0)
    #expect(help.out.contains("usage") || help.out.contains("syncsim"))
    let misspelt = syncsim(["swep", "x.json"])
    #expect(misspelt.code == 64)
    #expect(misspelt.err.contains("unknown command 'swep' (did you mean 'sweep'?)"))
    #expect(syncsim(["help", "reprot"]).err.contains("did you mean 'report'?"))
  }
}

/// Issue 38, item 8 (console and report): rows never visible are censored, and the summary says
/// the latency figures are then lower bounds.
@Suite struct CensoringTests {
  @Test func aRunWithUnseenRowsSaysItsLatencyFiguresAreLowerBounds() throws {
    try withTemporaryDirectory { directory in
      let result = syncsim(["run", packageRoot + "/Scenarios/nudge-timer.json", "--out", directory + "/out"])
      let summary = try #require(
        CSVTable.parse(try String(contentsOfFile: directory + "/out/summary.csv", encoding: .utf8)))
      let unseen = try #require(summary.columns.firstIndex(of: "rowsNotVisible").map { summary.rows[0][$0] })
      #expect(Int(unseen) ?? 0 > 0)
      #expect(result.out.contains("censored     \(unseen) rows never became visible by the end: the latency figures"))
      #expect(syncsim(["report", directory + "/out"]).code == 0)
      let html = try String(contentsOfFile: directory + "/out/report.html", encoding: .utf8)
      #expect(html.contains("\(unseen) rows never became visible and are not in the curves: they are censored"))
      let clean = syncsim(["run", packageRoot + "/Scenarios/quickstart.json", "--out", directory + "/q"])
      #expect(!clean.out.contains("censored"))
    }
  }
}

/// Issue 38, item 9: bash completion offers the catalog's metrics after --metric, the verdicts
/// and formats of compare, and the library's scenario names after check.
@Suite struct CompletionListsTests {
  @Test func bashCompletionOffersMetricsVerdictsAndLibraryNames() throws {
    try withTemporaryDirectory { directory in
      let script = directory + "/c.bash"
      try syncsim(["completion", "bash"]).out.write(toFile: script, atomically: true, encoding: .utf8)
      func complete(_ words: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        process.arguments = [
          "-c",
          "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _syncsim; echo \"${COMPREPLY[*]}\"",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      }
      #expect(try complete(["syncsim", "check", "quick"]) == "quickstart")
      #expect(
        try complete(["syncsim", "report", "x", "--metric", "latency.p9"]) == "latency.p90 latency.p95 latency.p99")
      #expect(try complete(["syncsim", "compare", "a", "b", "--fail-on", "w"]) == "worse")
      #expect(try complete(["syncsim", "compare", "a", "b", "--format", "m"]) == "markdown")
    }
  }
}

/// Issue 38, item 8: a Poisson workload may stop at `until`, so the run drains and no row is
/// censored; `jitter` and `from` still need `every`.
@Suite struct PoissonUntilTests {
  @Test func poissonEditsStopAtUntilAndTheRunDrains() throws {
    let base = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
    let text = base.replacingOccurrences(
      of: "{\"devices\": \"all\", \"editsPerHour\": 10, \"insertShare\": 0.3}",
      with: "{\"devices\": \"all\", \"editsPerHour\": 10, \"insertShare\": 0.3, \"until\": \"3h\"}")
    #expect(text != base)
    let (scenario, _) = try ScenarioDecoder.decode(Array(text.utf8), file: "u.json")
    let report = ScenarioRunner.run(scenario)
    let edits = report.rows.map(\.editedAt.seconds)
    #expect(!edits.isEmpty && edits.allSatisfy { $0 <= 3 * 3600 })
    #expect(report.summary.value("rowsNotVisible") == 0)
    #expect(report.summary.value("converged") == 1)
    // Up to 3 h, the same edits as without `until` (the same random draws).
    let whole = ScenarioRunner.run(try ScenarioDecoder.decode(Array(base.utf8), file: "q.json").0)
    let early = whole.rows.map(\.editedAt.seconds).filter { $0 <= 3 * 3600 }
    #expect(Set(early) == Set(edits))
    #expect(
      RunEstimate(scenario).writes < RunEstimate(try ScenarioDecoder.decode(Array(base.utf8), file: "q.json").0).writes
        * 0.6)
    let jitter = text.replacingOccurrences(of: "\"until\": \"3h\"", with: "\"until\": \"3h\", \"jitter\": \"1s\"")
    #expect(throws: ScenarioProblems.self) { try ScenarioDecoder.decode(Array(jitter.utf8), file: "j.json") }
  }
}
