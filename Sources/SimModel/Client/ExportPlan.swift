import SimKernel

/// An export's plan: the changes it carries, grouped into records and batches.
struct ExportPlan {
  var entries: [Change] = []
  /// Per batch: end index into `entries`, record count, bytes.
  var batchEnds: [Int32] = []
  var batchRecords: [Int32] = []
  var batchBytes: [Int64] = []

  /// Ends a batch after entry `end - 1`, with its record count and bytes.
  mutating func appendBatch(end: Int, records: Int32, bytes: Int64) {
    batchEnds.append(Int32(end))
    batchRecords.append(records)
    batchBytes.append(bytes)
  }

  /// Keeps the first `count` batches and forgets the rest.
  mutating func keepBatches(_ count: Int) {
    guard count < batchEnds.count else { return }
    batchEnds.removeLast(batchEnds.count - count)
    batchRecords.removeLast(batchRecords.count - count)
    batchBytes.removeLast(batchBytes.count - count)
  }

  /// Empties the plan, keeping its buffers for the next export.
  mutating func clear() {
    entries.removeAllKeepingCapacity()
    batchEnds.removeAllKeepingCapacity()
    batchRecords.removeAllKeepingCapacity()
    batchBytes.removeAllKeepingCapacity()
  }
}
