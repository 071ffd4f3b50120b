/// Every member of a scenario's device entries, in world order, made when read: the accounts
/// and stores `WorldPartitioning` and `WorldSpec.zoneLayout(of:)` read, for ten million devices
/// without holding them (a scenario run in shards expands only its shard's: `ShardWindow`).
public struct EntryMembers: RandomAccessCollection, Sendable {
  /// Per entry: the device its members copy, their number, and whether member k gets account k.
  let entries: [(template: DeviceSpec, count: Int, perDevice: Bool)]
  /// Per entry, its members' end in the world (a running total).
  let ends: [Int]

  public init(_ entries: [(template: DeviceSpec, count: Int, perDevice: Bool)]) {
    self.entries = entries
    var total = 0
    ends = entries.map { entry in
      total += entry.count
      return total
    }
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { ends.last ?? 0 }

  /// The member's template with its account; its name is the entry's (nothing here reads it).
  public subscript(position: Int) -> DeviceSpec {
    var low = 0
    var high = ends.count - 1
    while low < high {
      let middle = (low + high) / 2
      if ends[middle] > position { high = middle } else { low = middle + 1 }
    }
    let entry = entries[low]
    return Self.member(position - (ends[low] - entry.count), of: entry.template, perDevice: entry.perDevice)
  }

  /// Member `number` of an entry: its template, with account `number` when each member has its own.
  public static func member(_ number: Int, of template: DeviceSpec, perDevice: Bool) -> DeviceSpec {
    var device = template
    if perDevice { device.account = number }
    return device
  }
}
