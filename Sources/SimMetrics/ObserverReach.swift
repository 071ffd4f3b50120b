/// One observer's imports and UI refreshes as the tally walks them (`tallyObservers`): its
/// imports' running maximum token, request, start and end, and its refreshes' running maximum
/// token and time.
///
/// Kept from one observer, zone and part to the next for the arrays' capacity: a fleet's part is
/// one zone of two observers, and growing six arrays afresh in each was a tenth of its tally.
struct ObserverReach: Sendable {
  var importReach: [Int32] = []
  var importRequested: [Int64] = []
  var importStarted: [Int64] = []
  var importEnded: [Int64] = []
  var visibleReach: [Int32] = []
  var visibleAt: [Int64] = []

  /// Empties every array, keeping its storage (before each observer).
  @inline(__always)
  mutating func empty() {
    importReach.removeAll(keepingCapacity: true)
    importRequested.removeAll(keepingCapacity: true)
    importStarted.removeAll(keepingCapacity: true)
    importEnded.removeAll(keepingCapacity: true)
    visibleReach.removeAll(keepingCapacity: true)
    visibleAt.removeAll(keepingCapacity: true)
  }
}
