import SimModel

/// The shard of a world that a scenario holds when it was decoded for `run --shard I/N` and the
/// world has more devices than one machine's run expands (`Request.windowAbove`): the world's
/// parts are found from its device entries without expanding them, and only the shard's parts'
/// devices are expanded, each with its name, account and random streams in the whole world.
///
/// Its parts then run as they run in the whole world (`WorldPartitioning.spec(ofPart:in:)` gives
/// each the same spec), so its tally, fingerprints and rows are the ones an unwindowed shard
/// writes: rows name devices by name, stores by their place on the device, and zones by the
/// world's ids (`storeZones`).
public struct ShardWindow: Sendable, Equatable {
  /// What a decode for a shard asks for.
  public struct Request: Sendable {
    public var shard: RunShard
    /// Worlds of more devices than this hold only the shard's (by default the limit of a run
    /// that is not sharded).
    public var windowAbove: Int

    public init(shard: RunShard, windowAbove: Int = ScenarioDecoder.Limits.maxDevices) {
      self.shard = shard
      self.windowAbove = windowAbove
    }
  }

  public let shard: RunShard
  /// The whole world's independent parts, and the ones this shard holds.
  public let partCount: Int
  public let parts: Range<Int>
  /// The whole world's devices.
  public let worldDevices: Int
  /// The whole world's zone of each store the scenario holds (−1 none), in store order.
  public let storeZones: [Int32]
}
