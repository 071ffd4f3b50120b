import SimModel

/// One of N shards of a run whose accounts are independent (`syncsim run --shard I/N`): shard I
/// runs the I-th contiguous share of the world's parts (`WorldPartitioning`), and `syncsim merge`
/// adds the shards up, in shard order, into the files the unsharded run writes.
public struct RunShard: Sendable, Equatable {
  /// 1…count.
  public let index: Int
  public let count: Int

  public init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }

  /// The parts of a world of `total` parts this shard runs: a contiguous share, the shares in
  /// shard order covering every part once.
  public func parts(of total: Int) -> Range<Int> {
    ((index - 1) * total / count)..<(index * total / count)
  }

  /// `I/N` as `--shard` takes it.
  public var text: String { "\(index)/\(count)" }

  /// `I/N` read, or nil when it is not 1 ≤ I ≤ N ≤ 1,000,000.
  public init?(text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, count <= 1_000_000,
      index >= 1, index <= count
    else { return nil }
    self.init(index: index, count: count)
  }

  /// Why `scenario` cannot run in `count` shards, or nil when it can: a world whose accounts are
  /// coupled is one part (and says why), a shard needs a part of its own, and `timeline.csv`
  /// samples every device at once. A scenario holding one shard's devices (`ShardWindow`) had its
  /// parts counted when it was decoded; a timeline action can still couple them.
  public static func problem(_ scenario: Scenario, count: Int, trace: Bool) -> String? {
    let partitioning = WorldPartitioning(scenario.spec)
    let worldParts = partitioning.coupling == nil ? scenario.shardWindow?.partCount : nil
    if let problem = partsProblem(
      partCount: worldParts ?? partitioning.count, coupling: partitioning.coupling, count: count)
    {
      return "\(scenario.name) " + problem
    }
    if scenario.outputs.contains("timeline") {
      return "a shard cannot write timeline.csv (it samples every device at once): leave \"timeline\" out of outputs"
    }
    if trace { return "a shard cannot write trace.csv (--trace): the trace is one kernel's" }
    return nil
  }

  /// Why a world of `partCount` parts cannot run in `count` shards (completing "NAME …"), or nil.
  static func partsProblem(partCount: Int, coupling: String?, count: Int) -> String? {
    if partCount == 1 {
      let why = coupling ?? "the world has one account (or one group of accounts sharing zones)"
      return "cannot be sharded: it runs as one part, because of \(why)"
    }
    if count > partCount {
      return "cannot run in \(count) shards: the world has \(partCount) independent parts; use at most \(partCount)"
    }
    return nil
  }
}
