import SimKernel

/// Every write the world can still read, by id: the recent ones in id order, the older ones that
/// are still referenced (by a store's history or an export's plan, a store's fields, or the
/// server's) in a sorted table. The rest are released, so the table grows with what devices and
/// the server hold, not with how many writes were ever made.
///
/// A commit reads the write it commits (recent: a direct index) and the write it overwrites at
/// the server (often old: a binary search in the kept table).
struct WriteTable {
  /// Ids of older writes still referenced, ascending, and their states.
  private var keptIDs: [Int32] = []
  private var kept: [WriteState] = []
  /// Writes `tailBase..<tailBase + tail.count`, in id order.
  private var tailBase: Int32 = 0
  private var tail: [WriteState] = []

  /// The id the next write gets.
  var nextID: Int32 { tailBase + Int32(tail.count) }

  /// Writes held (kept and recent).
  var heldCount: Int { kept.count + tail.count }

  /// Bytes the table takes (capacities).
  var bytes: Int {
    keptIDs.capacity * MemoryLayout<Int32>.stride + (kept.capacity + tail.capacity) * MemoryLayout<WriteState>.stride
  }

  mutating func append(_ state: WriteState) -> WriteID {
    tail.append(state)
    return WriteID(Int(nextID) - 1)
  }

  mutating func reserveCapacity(_ count: Int) { tail.reserveCapacity(count) }

  subscript(id: WriteID) -> WriteState {
    @inline(__always) get {
      let raw = id.raw
      if raw >= tailBase { return tail[Int(raw - tailBase)] }
      var (low, high) = (0, keptIDs.count)
      while low < high {
        let mid = (low + high) / 2
        if keptIDs[mid] < raw { low = mid + 1 } else { high = mid }
      }
      precondition(low < keptIDs.count && keptIDs[low] == raw, "a released write was read")
      return kept[low]
    }
  }

  /// Writes made since the last release, and older writes kept.
  var recentCount: Int { tail.count }
  var keptCount: Int { kept.count }

  /// Keeps only the writes in `live` (ascending, repeats allowed; ids not in the table are ignored).
  mutating func release(keeping live: [Int32]) {
    var ids: [Int32] = []
    var states: [WriteState] = []
    ids.reserveCapacity(live.count)
    states.reserveCapacity(live.count)
    var keptIndex = 0
    for id in live where id < nextID && id != ids.last {
      if id >= tailBase {
        ids.append(id)
        states.append(tail[Int(id - tailBase)])
      } else {
        while keptIndex < keptIDs.count && keptIDs[keptIndex] < id { keptIndex += 1 }
        guard keptIndex < keptIDs.count && keptIDs[keptIndex] == id else { continue }
        ids.append(id)
        states.append(kept[keptIndex])
      }
    }
    keptIDs = ids
    kept = states
    tailBase = nextID
    tail = []
  }
}
