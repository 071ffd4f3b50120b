/// Scratch buffers for planning exports and imports, reused across them so that planning
/// allocates nothing in steady state.
struct PlanningScratch {
  /// Per object of the zone an export plans: its record's rank (valid where stamped).
  var rank: [Int32] = []
  var kept: [Change] = []
  var objects: [ObjectID] = []
  var counts: [Int32] = []
  /// Per object of the zone an import scans: its position in the import's queue.
  var queueSlot: [Int32] = []
  /// The records a modify request failed to save (positions in its batch, errors, retry-afters).
  var failedRecords: [RecordFailure] = []
}
