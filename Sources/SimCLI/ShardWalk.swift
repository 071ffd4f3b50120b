import SimExperiments
import SimMetrics

/// The rows of a sweep's shards in the order one unsharded sweep writes them (point,
/// replication, then the metric catalog's order), read in place and merged as they are walked:
/// each shard's `sweep.csv` is already in that order, so `merge` holds one row per shard at a
/// time, never the shards' tables (a 235 MB file needed about 20 times its size in memory).
struct ShardWalk {
  /// A shard's file and where the walk stands in it.
  struct Source {
    let name: String
    var cursor: MappedCSV.Cursor
    var row: [String]?
    var rowNumber = 0
    var key: Key?
    var malformed: [Int] = []
    var outOfOrder: Int?
  }

  /// The order of a row: point, replication and the metric's place in the catalog.
  struct Key: Comparable {
    var point: Int
    var replication: Int
    var rank: RunSummary.MetricSortKey
    static func < (a: Key, b: Key) -> Bool {
      (a.point, a.replication) != (b.point, b.replication)
        ? (a.point, a.replication) < (b.point, b.replication) : a.rank < b.rank
    }
  }

  var sources: [Source]
  let metricColumn: Int

  init(_ files: [(name: String, csv: MappedCSV)], factorCount: Int) {
    metricColumn = 4 + factorCount
    sources = files.map { Source(name: $0.name, cursor: $0.csv.cursor()) }
    for index in sources.indices { advance(index) }
  }

  func key(_ row: [String]) -> Key {
    Key(point: Int(row[1]) ?? -1, replication: Int(row[2]) ?? -1, rank: RunSummary.sortKey(row[metricColumn]))
  }

  /// Moves source `index` to its next well-formed row, noting malformed and out-of-order ones.
  mutating func advance(_ index: Int) {
    var malformed = false
    while let row = sources[index].cursor.next(malformed: &malformed) {
      if malformed {
        sources[index].malformed.append(sources[index].cursor.number)
        continue
      }
      let next = key(row)
      if let previous = sources[index].key, next < previous, sources[index].outOfOrder == nil {
        sources[index].outOfOrder = sources[index].cursor.number
      }
      sources[index].row = row
      sources[index].rowNumber = sources[index].cursor.number
      sources[index].key = next
      return
    }
    sources[index].row = nil
  }

  /// The next row of all shards together (the smallest key; the first shard on a tie), the shard
  /// it came from and its record number there; nil at the end.
  mutating func next() -> (row: [String], shard: Int, number: Int)? {
    var best: Int?
    for index in sources.indices {
      guard let key = sources[index].key, sources[index].row != nil else { continue }
      if let chosen = best, !(key < sources[chosen].key!) { continue }
      best = index
    }
    guard let best, let row = sources[best].row else { return nil }
    let number = sources[best].rowNumber
    advance(best)
    return (row, best, number)
  }
}
