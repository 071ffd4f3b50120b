import Foundation
import SimKernel
import SimMetrics
import SimTestSupport
import Testing

@testable import SimScenario

/// Issue 59, item 2: a shard of a run killed mid-run goes on from its last checkpoint
/// (`RunShardJournal`, `RunProgress`) and ends byte for byte as the uninterrupted shard, running
/// none of the parts the checkpoint counts again.
@Suite struct RunShardJournalTests {
  /// The library's 300 independent households (each run for 3 hours).
  static let households = packageRoot + "/Scenarios/households.json"

  /// Per-row files written into memory, as `run` streams them into files.
  final class MemoryFiles: @unchecked Sendable {
    var bytes: [String: [UInt8]] = [:]
    var streams: [(String, CSVStream)] = []
    /// Files already begun (a resumed run continues them, without a header).
    init(continuing: [String: [UInt8]] = [:]) { bytes = continuing }

    func open(_ name: String, columns: [String]) -> CSVStream {
      let continued = bytes[name] != nil
      if !continued { bytes[name] = [] }
      let stream = CSVStream(columns: columns, header: !continued) { [unowned self] chunk in
        self.bytes[name]! += chunk
      }
      streams.append((name, stream))
      return stream
    }

    func flush() { for (_, stream) in streams { try? stream.finish() } }
  }

  func households() throws -> Scenario {
    let bytes = try #require(FileManager.default.contents(atPath: Self.households))
    return try ScenarioDecoder.decode(Array(bytes), file: Self.households).0
  }

  /// The runner itself: stopped (in effect) after 7 parts, its progress written as text and read
  /// back, and run again from there with its files as they were: the rows, the shard's file, the
  /// fingerprint and the causes are the uninterrupted run's.
  @Test func aRunGoesOnFromItsProgressAsIfItHadNotStopped() throws {
    let scenario = try households()
    let shard = RunShard(index: 1, count: 2)
    let hours = SimDuration.hours(3)
    let whole = MemoryFiles()
    let full = ScenarioRunner.run(scenario, duration: hours, jobs: 2, spill: whole.open, shard: shard)
    whole.flush()
    #expect((full.shard?.parts.count ?? 0) > 100)

    // The same run, its progress and files taken after the seventh part.
    let first = MemoryFiles()
    var taken: (text: String, files: [String: [UInt8]])?
    _ = ScenarioRunner.run(
      scenario, duration: hours, jobs: 2, spill: first.open, shard: shard,
      checkpoint: { progress in
        guard taken == nil, let progress = progress(), progress.partsDone == 7 else { return }
        first.flush()
        taken = (progress.text, first.bytes)
      })
    let (text, files) = try #require(taken)
    let progress = try #require(RunProgress(text: TallyText(text)))
    #expect(progress.partsDone == 7)
    #expect(files["latency.csv"]!.count < whole.bytes["latency.csv"]!.count / 10)

    let rest = MemoryFiles(continuing: files)
    let resumed = ScenarioRunner.run(
      scenario, duration: hours, jobs: 2, spill: rest.open, shard: shard, resume: progress)
    rest.flush()
    #expect(rest.bytes.keys.sorted() == whole.bytes.keys.sorted())
    for (name, bytes) in whole.bytes.sorted(by: { $0.key < $1.key }) {
      let same = rest.bytes[name] == bytes
      #expect(same, "\(name): \(rest.bytes[name]?.count ?? 0) bytes; uninterrupted, \(bytes.count)")
    }
    #expect(RunShardFile.text(resumed, version: "t") == RunShardFile.text(full, version: "t"))
    #expect(resumed.fingerprint == full.fingerprint)
    #expect(resumed.outcome.processedEvents == full.outcome.processedEvents)
    #expect(resumed.outcome.fingerprint == full.outcome.fingerprint)
    let causes = { (report: RunReport) in (report.causeTotals ?? []).map { "\($0.name) \($0.nanoseconds)" } }
    #expect(!causes(full).isEmpty && causes(resumed) == causes(full))
  }

  /// Progress text that is cut short or out of range is not read.
  @Test func malformedProgressIsRefused() throws {
    let scenario = try households()
    var text: String?
    _ = ScenarioRunner.run(
      scenario, duration: .hours(1), jobs: 1, spill: MemoryFiles().open, shard: RunShard(index: 1, count: 3),
      checkpoint: { progress in if text == nil { text = progress()?.text } })
    let good = try #require(text)
    #expect(RunProgress(text: TallyText(good)) != nil)
    #expect(good.hasPrefix("progress.parts 1 100 300\n"))
    for (from, to) in [("progress.parts 1 ", "progress.parts 0 "), ("progress.parts 1 ", "progress.parts 2 "),
                       ("progress.parts 1 100", "progress.parts 1 400"), ("progress.ids ", "progress.ids -1 ")] {
      #expect(RunProgress(text: TallyText(good.replacingOccurrences(of: from, with: to))) == nil, "\(to)")
    }
    #expect(RunProgress(text: TallyText(String(good.prefix(good.count / 2)))) == nil)
  }

  /// The command, killed for real: `run --shard` with a checkpoint after every part, killed with
  /// SIGKILL once its journal counts some parts, then started again. It says how many parts it
  /// kept, ends equal to the uninterrupted shard, and leaves no journal. A journal whose file was
  /// edited, or of another seed, is not trusted: the shard starts again and is still right.
  @Test func aKilledShardResumesFromItsJournal() throws {
    let executable = packageRoot + "/.build/debug/syncsim"
    try #require(FileManager.default.isExecutableFile(atPath: executable), "swift test builds \(executable)")
    try withTemporaryDirectory { directory in
      let command = ["run", Self.households, "--duration", "3h", "--shard", "1/2", "--jobs", "1"]
      let reference = directory + "/reference"
      #expect(syncsim(command + ["--out", reference]).code == 0)
      let shard = directory + "/shard"
      let journal = shard + ".resume"

      /// Starts the shard and kills it once its checkpoint counts at least `parts` parts.
      func killed(after parts: Int) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = command + ["--out", shard, "--checkpoint-seconds", "0"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var counted = 0
        for _ in 0..<6000 where counted < parts && process.isRunning {
          Thread.sleep(forTimeInterval: 0.005)
          counted = checkpointParts(journal)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return checkpointParts(journal)
      }

      let done = try killed(after: 3)
      try #require(done >= 3, "the shard was killed after its journal counted parts")
      #expect(!FileManager.default.fileExists(atPath: shard))
      // `status` reads the killed shard's journal and a finished shard 2/2.
      let second = directory + "/second"
      #expect(syncsim(["run", Self.households, "--duration", "3h", "--shard", "2/2", "--out", second]).code == 0)
      let status = syncsim("status", shard, second)
      #expect(status.code == 1, "\(status.err)")
      #expect(status.out.contains("shard 1/2  \(done) of 150 parts  started, not finished  (\(shard))"), "\(status.out)")
      #expect(status.out.contains("shard 2/2  150 of 150 parts  finished  (\(second))"), "\(status.out)")
      #expect(status.out.contains("total        \(done + 150) of 300 parts finished"), "\(status.out)")
      let resumed = syncsim(command + ["--out", shard])
      #expect(resumed.code == 0, "\(resumed.err)")
      #expect(resumed.out.contains("resumed      \(done) of the shard's 150 parts were finished"), "\(resumed.out)")
      #expect(resumed.out.contains("ran the other \(150 - done)"))
      #expect(!FileManager.default.fileExists(atPath: journal))
      try expectSameFiles(shard, reference)
      #expect(syncsim("status", shard, second).code == 0)

      // A journal whose latency.csv was edited: not trusted, started again, still right.
      try FileManager.default.removeItem(atPath: shard)
      #expect(try killed(after: 3) >= 3)
      let handle = try #require(FileHandle(forUpdatingAtPath: journal + "/latency.csv"))
      try handle.seek(toOffset: 200)
      handle.write(Data("9".utf8))
      try handle.close()
      let edited = syncsim(command + ["--out", shard])
      #expect(edited.code == 0 && edited.err.contains("does not match latency.csv"), "\(edited.err)")
      #expect(!edited.out.contains("resumed "))
      try expectSameFiles(shard, reference)

      // A journal of another seed: not resumed.
      try FileManager.default.removeItem(atPath: shard)
      #expect(try killed(after: 3) >= 3)
      let seeded = syncsim(command + ["--out", shard, "--seed", "8"])
      #expect(seeded.code == 0 && seeded.err.contains("is of another run"), "\(seeded.err)")
      #expect(!seeded.out.contains("resumed "))

      // Issue 71, item 3: a checkpoint's counter edited in range (no longer its digest), and
      // one at Int64.max with the digest made to match (it trapped the restarted task): neither
      // is trusted, the shard starts again and is still right.
      let checkpoint = journal + "/checkpoint.txt"
      for (name, value, sealed) in [("in range", { (n: Int) in String(n + 1) }, false),
                                    ("at the edge", { (_: Int) in "9223372036854775000" }, true)] {
        try FileManager.default.removeItem(atPath: shard)
        #expect(try killed(after: 3) >= 3)
        let text = try String(contentsOfFile: checkpoint, encoding: .utf8)
        let format = String(text.prefix { $0 != "\n" }) + "\n"
        var edited = text.dropFirst(format.count).split(separator: "\n").map { line -> String in
          guard line.hasPrefix("events "), let count = Int(line.dropFirst(7)) else { return String(line) }
          return "events " + value(count)
        }.joined(separator: "\n") + "\n"
        if sealed { edited = SelfDigest.resealed(edited) }
        try (format + edited).write(toFile: checkpoint, atomically: false, encoding: .utf8)
        let restarted = syncsim(command + ["--out", shard])
        let why = sealed ? "holds line events: 9223372036854775000, outside 0..<2^62" : "does not match its digest"
        #expect(restarted.code == 0 && restarted.err.contains(why), "\(name): \(restarted.err)")
        #expect(!restarted.out.contains("resumed "), "\(name)")
        try expectSameFiles(shard, reference)
      }
    }
  }

  /// A second run of the same shard while one holds the journal's lock runs apart (a staging
  /// folder of its own), resumes nothing, and leaves the holder's journal as it was.
  @Test func aHeldJournalIsLeftToItsHolder() throws {
    try withTemporaryDirectory { directory in
      let shard = directory + "/shard"
      let journal = shard + ".resume"
      try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: true)
      let lock = open(journal + "/.syncsim-shard.lock", O_RDWR | O_CREAT, 0o644)
      defer { close(lock) }
      try #require(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
      // A lock taken through another open file description conflicts as another process's does.
      let result = syncsim("run", Self.households, "--duration", "1h", "--shard", "2/3", "--out", shard)
      #expect(result.code == 0 && result.err.contains("another run of this shard holds"), "\(result.err)")
      #expect(FileManager.default.fileExists(atPath: shard + "/run-shard.txt"))
      #expect(try FileManager.default.contentsOfDirectory(atPath: journal) == [".syncsim-shard.lock"])
    }
  }

  /// `--checkpoint-seconds` is a shard's, and a number of seconds: anything else is exit 64.
  @Test func checkpointSecondsAreRefusedWhereTheyMeanNothing() {
    let file = Self.households
    for (arguments, message) in [
      (["--checkpoint-seconds", "5"], "--checkpoint-seconds is for a shard (--shard I/N)"),
      (["--shard", "1/2", "--checkpoint-seconds", "-1"], "--checkpoint-seconds must be a number of seconds"),
      (["--shard", "1/2", "--checkpoint-seconds", "soon"], "--checkpoint-seconds must be a number of seconds"),
      (["--shard", "1/2", "--checkpoint-seconds", "90000"], "--checkpoint-seconds must be a number of seconds"),
    ] {
      let result = syncsim(["run", file, "--out", "/nonexistent/never"] + arguments)
      #expect(result.code == 64 && result.err.contains(message), "\(arguments): \(result.err)")
    }
  }

  func checkpointParts(_ journal: String) -> Int {
    guard let text = try? String(contentsOfFile: journal + "/checkpoint.txt", encoding: .utf8) else { return 0 }
    let line = text.split(separator: "\n").first { $0.hasPrefix("progress.parts ") }
    return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
  }

  func expectSameFiles(_ folder: String, _ reference: String) throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: reference).sorted()
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == names)
    for name in names {
      #expect(FileManager.default.contents(atPath: folder + "/" + name) == FileManager.default.contents(atPath: reference + "/" + name), "\(name)")
    }
  }
}
