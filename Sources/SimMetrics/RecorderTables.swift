/// The tables a recorder grows with every write and activity, emptied with their capacity kept,
/// handed from a finished part's recorder to the next one's.
///
/// A fleet's parts are alike: each recorder that starts empty grows its tables by doubling,
/// copying them each time, and a fleet of 1,000 two-device accounts spent 1.5 % of its
/// instructions so (the tables' copies, their allocations and frees). Nothing else passes from
/// one recorder to the next, so a part's results cannot depend on which recorder held them
/// before.
public struct RecorderTables: Sendable {
  var writes: [MetricsRecorder.WriteRecord] = []
  var writeIndex: [Int32] = []
  var activities: [MetricsRecorder.ActivityRecord] = []
  /// The tally's arrays for an observer's imports and refreshes (emptied before each observer).
  var reach = ObserverReach()

  public init() {}

  /// Elements the tables hold room for, all tables together (for tests).
  public var capacity: Int { writes.capacity + writeIndex.capacity + activities.capacity }

  /// Empties every table, keeping its storage.
  mutating func empty() {
    writes.removeAll(keepingCapacity: true)
    writeIndex.removeAll(keepingCapacity: true)
    activities.removeAll(keepingCapacity: true)
  }
}

extension MetricsRecorder {
  /// Hands over this recorder's tables, emptied, for another recorder; this one keeps empty ones
  /// and must not be read after.
  public func takeTables() -> RecorderTables {
    var tables = RecorderTables()
    swap(&tables.writes, &writes)
    swap(&tables.writeIndex, &writeIndex)
    swap(&tables.activities, &activities)
    swap(&tables.reach, &observerReach)
    tables.empty()
    return tables
  }
}
