import Foundation
import SimTestSupport
import Testing

@testable import SimCLI

/// Issue 59, items 1 and 2 (in part): the shard index from a job engine's variables when
/// `--shard` is not given, and a merge that names each missing shard with the command that runs it.
@Suite struct ShardEnvironmentTests {
  enum Chosen: Equatable {
    case success(String?)
    case failure(String)
  }

  func choose(_ environment: [String: String], flag: String? = nil, shards: String? = nil) -> Chosen {
    do throws(UsageError) {
      return .success(try ShardEnvironment.resolve(flag: flag, shards: shards, environment: environment)?.text)
    } catch {
      return .failure(error.message)
    }
  }

  func slurm(id: Int, min: Int, count: Int, step: Int? = nil, max: Int? = nil) -> [String: String] {
    var variables = [
      "SLURM_ARRAY_TASK_ID": String(id), "SLURM_ARRAY_TASK_MIN": String(min), "SLURM_ARRAY_TASK_COUNT": String(count),
      "SLURM_ARRAY_TASK_MAX": String(max ?? min + count - 1),
    ]
    if let step { variables["SLURM_ARRAY_TASK_STEP"] = String(step) }
    return variables
  }

  @Test func slurmArraysFromZeroOrOne() {
    #expect(choose(slurm(id: 0, min: 0, count: 8)) == .success("1/8"))
    #expect(choose(slurm(id: 7, min: 0, count: 8)) == .success("8/8"))
    #expect(choose(slurm(id: 1, min: 1, count: 8)) == .success("1/8"))
    #expect(choose(slurm(id: 8, min: 1, count: 8, step: 1)) == .success("8/8"))
    #expect(choose(slurm(id: 3, min: 0, count: 4), shards: "4") == .success("4/4"))
  }

  /// Issue 71, item 2: variables at the Int64 edges trapped `run` and `sweep` (`id - first + 1`,
  /// the messages' sums), and their text reached the terminal raw. Each is now a usage error
  /// naming the variable, with control characters escaped.
  @Test func slurmVariablesAtTheEdgesAreRefusedNotTrapped() {
    let big = String(Int64.max)
    let small = String(Int64.min)
    let base = ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4",
                "SLURM_ARRAY_TASK_MAX": "3"]
    let edges: [[String: String]] = [
      ["SLURM_ARRAY_TASK_ID": big, "SLURM_ARRAY_TASK_MIN": "-1"], ["SLURM_ARRAY_TASK_MIN": small],
      ["SLURM_ARRAY_TASK_MAX": big], ["SLURM_ARRAY_TASK_MAX": small], ["SLURM_ARRAY_TASK_COUNT": big],
      ["SLURM_ARRAY_TASK_STEP": big], ["SLURM_ARRAY_TASK_STEP": small], ["SLURM_ARRAY_TASK_MIN": big],
    ]
    for edge in edges {
      let chosen = choose(base.merging(edge) { $1 })
      guard case .failure(let message) = chosen else {
        Issue.record("\(edge) was accepted: \(chosen)")
        continue
      }
      #expect(message.contains("out of range") || message.contains("step"), "\(edge): \(message)")
    }
    // A variable's control characters are escaped in the message: no window title, no clear.
    let hostile = base.merging(["SLURM_ARRAY_TASK_ID": "\u{1B}]0;owned\u{07}"]) { $1 }
    guard case .failure(let message) = choose(hostile) else {
      Issue.record("a non-number was accepted")
      return
    }
    #expect(!message.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(message)")
    #expect(message.contains("\\u{1B}]0;owned\\u{7}"), "\(message)")
  }

  @Test func slurmArraysThatDoNotAddUpAreRefused() {
    for (environment, shards, words) in [
      (slurm(id: 9, min: 1, count: 8), nil, "out of range"),
      (slurm(id: 0, min: 0, count: 4, step: 2, max: 6), nil, "step is 2"),
      (slurm(id: 0, min: 0, count: 4, max: 9), nil, "not contiguous"),
      (slurm(id: 0, min: 0, count: 4), "5", "--shards 5 disagrees"),
      (["SLURM_ARRAY_TASK_ID": "2"], nil, "needs SLURM_ARRAY_TASK_MIN"),
      (["SLURM_ARRAY_TASK_ID": "two", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"], nil, "not a whole number"),
    ] as [([String: String], String?, String)] {
      guard case .failure(let message) = choose(environment, shards: shards) else {
        Issue.record("accepted \(environment)")
        continue
      }
      #expect(message.contains(words), "\(message)")
      #expect(message.contains("SLURM_ARRAY_TASK_"), "the variables are named: \(message)")
    }
  }

  @Test func kubernetesAndAWSBatchCountFromZeroAndNeedTheCount() {
    #expect(choose(["JOB_COMPLETION_INDEX": "0"], shards: "3") == .success("1/3"))
    #expect(choose(["JOB_COMPLETION_INDEX": "2"], shards: "3") == .success("3/3"))
    #expect(choose(["AWS_BATCH_JOB_ARRAY_INDEX": "4"], shards: "5") == .success("5/5"))
    for (environment, shards, words) in [
      (["JOB_COMPLETION_INDEX": "1"], nil, "give --shards N"),
      (["AWS_BATCH_JOB_ARRAY_INDEX": "1"], nil, "give --shards N"),
      (["JOB_COMPLETION_INDEX": "3"], "3", "out of range"),
      (["AWS_BATCH_JOB_ARRAY_INDEX": "-1"], "3", "out of range"),
      (["JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": "1"], "3", "two job engines"),
      ([:], "3", "needs the shard's index"),
    ] as [([String: String], String?, String)] {
      guard case .failure(let message) = choose(environment, shards: shards) else {
        Issue.record("accepted \(environment)")
        continue
      }
      #expect(message.contains(words), "\(message)")
    }
  }

  @Test func theFlagWinsAndNothingMeansTheWholeRun() {
    #expect(choose(slurm(id: 0, min: 0, count: 8), flag: "3/5") == .success("3/5"))
    #expect(choose(["PATH": "/bin"]) == .success(nil))
    #expect(choose([:], flag: "2/4", shards: "5") == .failure("--shard 2/4 and --shards 5 disagree on the number of shards"))
  }

  /// The engines' variables through the process, end to end: three tasks (Slurm from 0, a
  /// Kubernetes index, an AWS Batch index) merge into the unsharded sweep's files, byte for byte;
  /// a merge missing a shard names it with the command that runs it, and that command does.
  @Test func tasksOfEveryEngineMergeIntoTheWholeSweep() throws {
    let executable = packageRoot + "/.build/debug/syncsim"
    try #require(FileManager.default.isExecutableFile(atPath: executable), "swift test builds \(executable)")
    try withTemporaryDirectory { directory in
      let sweep = ["sweep", packageRoot + "/Scenarios/push-drop-sweep.json", "--set", "duration=1h", "--seeds", "1..3"]
      func launch(_ arguments: [String], _ environment: [String: String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
      }
      let slurm = try launch(sweep + ["--out", directory + "/shards/1"], self.slurm(id: 0, min: 0, count: 3))
      #expect(slurm.0 == 0 && slurm.1.contains("shard 1/3, chosen by SLURM_ARRAY_TASK_ID=0"), "\(slurm.1)")
      let kubernetes = try launch(sweep + ["--shards", "3", "--out", directory + "/shards/2"], ["JOB_COMPLETION_INDEX": "1"])
      #expect(kubernetes.0 == 0 && kubernetes.1.contains("chosen by JOB_COMPLETION_INDEX=1"), "\(kubernetes.1)")
      let twoEngines = try launch(
        sweep + ["--shards", "3", "--out", directory + "/never"], ["JOB_COMPLETION_INDEX": "1", "AWS_BATCH_JOB_ARRAY_INDEX": "1"])
      #expect(twoEngines.0 == 64 && twoEngines.1.contains("JOB_COMPLETION_INDEX=1, AWS_BATCH_JOB_ARRAY_INDEX=1"))

      // Shard 3 is missing: merge names it and the command that runs it.
      let shards = [1, 2].map { directory + "/shards/\($0)" }
      let partial = syncsim(["merge"] + shards + ["--out", directory + "/merged"])
      #expect(partial.code == 65)
      let line = try #require(partial.err.split(separator: "\n").first { $0.contains("run shard 3 with: ") }, "\(partial.err)")
      let command = String(line.split(separator: "with: ", maxSplits: 1)[1])
      #expect(command.hasSuffix("--shard 3/3 --out \(directory)/shards/3"), "\(command)")
      let shell = Process()
      shell.executableURL = URL(fileURLWithPath: "/bin/sh")
      shell.arguments = ["-c", executable + " " + command.dropFirst("syncsim ".count)]
      shell.standardOutput = FileHandle.nullDevice
      try shell.run()
      shell.waitUntilExit()
      #expect(shell.terminationStatus == 0)
      #expect(syncsim(["merge"] + shards + [directory + "/shards/3", "--out", directory + "/merged"]).code == 0)
      #expect(syncsim(sweep + ["--out", directory + "/whole"]).code == 0)
      for file in ["sweep.csv", "sweep-summary.csv", "datapackage.json", "points/point-0002/scenario.json"] {
        let merged = try Data(contentsOf: URL(fileURLWithPath: directory + "/merged/" + file))
        let whole = try Data(contentsOf: URL(fileURLWithPath: directory + "/whole/" + file))
        #expect(merged == whole, "\(file)")
      }
    }
  }
}
