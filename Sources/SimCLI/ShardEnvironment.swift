import SimScenario

/// Which shard this process is, when `--shard` is not given: read from the variables a job-array
/// engine sets for each of its tasks, so that one command line serves every task.
///
/// - Slurm job arrays: `SLURM_ARRAY_TASK_ID`, from `SLURM_ARRAY_TASK_MIN` (an array may start at
///   0 or 1), `SLURM_ARRAY_TASK_COUNT` tasks, with a step of 1 (`SLURM_ARRAY_TASK_STEP`).
/// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX`, from 0; Kubernetes sets no count, so
///   `--shards N` (the Job's `completions`) gives it.
/// - AWS Batch array jobs: `AWS_BATCH_JOB_ARRAY_INDEX`, from 0, the size from `--shards N`.
///
/// Anything that does not add up is a usage error (exit 64) naming the variables: an index out
/// of range, a count that disagrees with `--shards`, or variables of two engines at once.
public enum ShardEnvironment {
  /// The largest index or count an engine's variable may hold: Slurm's `MaxArraySize` is at most
  /// 4,000,001, and a shard count at most 1,000,000; a bound keeps every sum in range (issue 71:
  /// `SLURM_ARRAY_TASK_ID=9223372036854775807` with `SLURM_ARRAY_TASK_MIN=-1` trapped).
  static let largestValue = 4_000_001

  /// A variable's text as a message shows it: control characters escaped (a title-setting
  /// escape sequence in a variable reached the terminal raw), and at most 40 characters.
  static func shown(_ text: String) -> String {
    let cut = text.count > 40 ? String(text.prefix(40)) + "…" : text
    return ScenarioProblem.printable(cut)
  }

  /// A shard chosen: `text` is `I/N` (1-based), and `origin` says what chose it.
  public struct Choice: Equatable, Sendable {
    public var text: String
    public var origin: String
  }

  /// The engines' index variables, in the order their errors name them.
  static let indexVariables = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"]

  /// The shard `--shard` (`flag`), `--shards` (`shards`) and `environment` choose; nil for a whole
  /// run (neither flag, no engine's index variable).
  public static func resolve(flag: String?, shards: String?, environment: [String: String]) throws(UsageError)
    -> Choice?
  {
    let count = try shards.map { text throws(UsageError) -> Int in
      guard let value = Int(text), value >= 1, value <= 1_000_000 else {
        throw UsageError("--shards must be a whole number from 1 to 1000000, got \"\(text)\"")
      }
      return value
    }
    if let flag {
      if let count, !flag.hasSuffix("/\(count)") {
        throw UsageError("--shard \(flag) and --shards \(count) disagree on the number of shards")
      }
      return Choice(text: flag, origin: "--shard \(flag)")
    }
    let set = indexVariables.filter { environment[$0] != nil }
    guard !set.isEmpty else {
      guard count == nil else {
        throw UsageError(
          "--shards N needs the shard's index: --shard I/N, or an engine's index variable ("
            + indexVariables.joined(separator: ", ") + ")")
      }
      return nil
    }
    guard set.count == 1 else {
      let named = set.map { "\($0)=\(shown(environment[$0]!))" }.joined(separator: ", ")
      throw UsageError("variables of two job engines are set (\(named)): give --shard I/N to say which shard this is")
    }
    switch set[0] {
    case "SLURM_ARRAY_TASK_ID": return try slurm(environment, shards: count)
    default: return try zeroBased(set[0], environment, shards: count)
    }
  }

  /// A Slurm array task: its id less the array's first, of the array's count.
  static func slurm(_ environment: [String: String], shards: Int?) throws(UsageError) -> Choice {
    func number(_ name: String) throws(UsageError) -> Int? {
      guard let text = environment[name] else { return nil }
      guard let value = Int(text) else { throw UsageError("\(name)=\(shown(text)) is not a whole number") }
      guard value >= 0, value <= largestValue else {
        throw UsageError("\(name)=\(text) is out of range (0 to \(largestValue), as Slurm's array indexes are)")
      }
      return value
    }
    let id = try number("SLURM_ARRAY_TASK_ID")!
    let named = ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_COUNT"]
      .compactMap { name in environment[name].map { "\(name)=\(shown($0))" } }.joined(separator: ", ")
    guard let first = try number("SLURM_ARRAY_TASK_MIN"), let total = try number("SLURM_ARRAY_TASK_COUNT") else {
      throw UsageError("a Slurm array task needs SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT (\(named)); or give --shard I/N")
    }
    if let step = try number("SLURM_ARRAY_TASK_STEP"), step != 1 {
      throw UsageError("the Slurm array's step is \(step) (\(named)): shards need every index, as --array=0-\(total - 1)")
    }
    if let last = try number("SLURM_ARRAY_TASK_MAX"), last - first + 1 != total {
      throw UsageError("the Slurm array is not contiguous (\(named)): shards need every index, as --array=\(first)-\(first + total - 1)")
    }
    if let shards, shards != total {
      throw UsageError("--shards \(shards) disagrees with the Slurm array's \(total) tasks (\(named))")
    }
    let index = id - first + 1
    guard total >= 1, total <= 1_000_000, index >= 1, index <= total else {
      throw UsageError("the Slurm array task is out of range (\(named))")
    }
    return Choice(text: "\(index)/\(total)", origin: named)
  }

  /// A Kubernetes or AWS Batch task: an index from 0, of `--shards`.
  static func zeroBased(_ name: String, _ environment: [String: String], shards: Int?) throws(UsageError) -> Choice {
    let text = environment[name]!
    let engine = name == "JOB_COMPLETION_INDEX" ? "a Kubernetes Indexed Job" : "an AWS Batch array job"
    guard let index = Int(text) else { throw UsageError("\(name)=\(shown(text)) is not a whole number") }
    guard let shards else {
      throw UsageError(
        "\(engine) sets its task's index (\(name)=\(text)) but not the number of tasks: give --shards N")
    }
    guard index >= 0, index < shards else {
      throw UsageError("\(name)=\(text) is out of range for --shards \(shards) (indexes 0 to \(shards - 1))")
    }
    return Choice(text: "\(index + 1)/\(shards)", origin: "\(name)=\(text), --shards \(shards)")
  }
}
