import SimKernel

/// A reused array into which a device's run history is copied for a researcher's policy, which
/// reads the history as an `ArraySlice` (`PolicyContext.recentRuns`); the world keeps its
/// histories as `RowBuffer`s.
///
/// A class, so that filling it needs no mutable access to the world. Its array is refilled in
/// place once the previous decision's slice has ended, so decisions allocate nothing once it has
/// held the longest history.
final class RunScratch {
  private var runs: [SimTime] = []

  /// A copy of `rows` as a slice, in the reused array.
  func slice(copying rows: UnsafeBufferPointer<SimTime>) -> ArraySlice<SimTime> {
    runs.removeAll(keepingCapacity: true)
    runs.append(contentsOf: rows)
    return runs[...]
  }
}
